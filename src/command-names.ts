/**
 * The process's commands, in one place for the entry's early start (src/main.ts, before the
 * service's modules load: nothing imported here) and the commands themselves (src/commands.ts).
 */

/** Every command, as `unknown command` lists them. */
export const COMMANDS: readonly string[] = [
  'serve',
  'worker',
  'migrate',
  'reindex',
  'previews',
  'demo',
  'unresolved-payments',
  'moderate',
  'attestation-withdraw',
];

/** Commands that do their work and exit, with results on stdout (they may hand it to a running service). */
export const ONE_SHOT_COMMANDS: readonly string[] = [
  'migrate',
  'reindex',
  'previews',
  'unresolved-payments',
  'moderate',
  'attestation-withdraw',
];

/** The others serve until stopped, on the database they open at start (the entry prepares it early). */
export const SERVING_COMMANDS: readonly string[] = COMMANDS.filter(
  (c) => !ONE_SHOT_COMMANDS.includes(c),
);

export const isServingCommand = (command: string): boolean => SERVING_COMMANDS.includes(command);

/** The arguments each command takes (`moderate` parses its own: src/domain/feedback/moderation.ts). */
const USAGE: Readonly<Record<string, { flags: readonly string[]; usage: string }>> = {
  serve: { flags: [], usage: 'serve' },
  worker: { flags: [], usage: 'worker' },
  migrate: { flags: [], usage: 'migrate' },
  demo: { flags: [], usage: 'demo' },
  reindex: { flags: ['--force'], usage: 'reindex [--force]' },
  previews: { flags: ['--force'], usage: 'previews [--force]' },
  'unresolved-payments': { flags: ['--all'], usage: 'unresolved-payments [--all]' },
};

/**
 * Why a command's arguments are refused, or undefined when they are its own. An operator's typo
 * (`payments:unresolved -- --al`, `reindex -- --froce`) must stop the command before it does
 * anything, not run it as if the flag had not been given and answer something else.
 */
export function argumentsProblem(command: string, args: readonly string[]): string | undefined {
  if (command === 'attestation-withdraw') {
    return args.length === 1 && !args[0]!.startsWith('-')
      ? undefined
      : 'usage: attestation-withdraw <0x address of the key>';
  }
  const spec = USAGE[command];
  if (!spec) return undefined;
  const unknown = args.filter((a, i) => !spec.flags.includes(a) || args.indexOf(a) !== i);
  if (unknown.length === 0) return undefined;
  return `${command} does not take ${unknown.map((a) => `"${a}"`).join(', ')}: usage: ${spec.usage}`;
}
