/**
 * The process's commands, in one place for the entry's early start (src/main.ts, before the
 * service's modules load: nothing imported here) and the commands themselves (src/commands.ts).
 */

/** What a command takes after its name. */
type Takes =
  /** these flags, each at most once, in any order */
  | { readonly flags: readonly string[] }
  /** exactly one argument that is not a flag (an address, an id) */
  | { readonly one: string }
  /** its own grammar, judged where the command lives (`moderate`: src/domain/feedback/moderation.ts) */
  | { readonly own: true };

interface Command {
  readonly name: string;
  /**
   * Serves until stopped, on the database it opens at start (the entry prepares it early), or does
   * its work and exits with results on stdout (it may hand the work to a running service).
   */
  readonly serves: boolean;
  readonly takes: Takes;
}

/**
 * Every command with what it takes: one row each, so a new command cannot be listed without saying
 * whether it serves and which arguments it accepts. In the order `unknown command` lists them.
 */
const TABLE: readonly Command[] = [
  { name: 'serve', serves: true, takes: { flags: [] } },
  { name: 'worker', serves: true, takes: { flags: [] } },
  { name: 'migrate', serves: false, takes: { flags: [] } },
  { name: 'reindex', serves: false, takes: { flags: ['--force'] } },
  { name: 'previews', serves: false, takes: { flags: ['--force'] } },
  { name: 'demo', serves: true, takes: { flags: [] } },
  { name: 'unresolved-payments', serves: false, takes: { flags: ['--all'] } },
  { name: 'moderate', serves: false, takes: { own: true } },
  { name: 'attestation-withdraw', serves: false, takes: { one: '<0x address of the key>' } },
];

/** Every command, as `unknown command` lists them. */
export const COMMANDS: readonly string[] = TABLE.map((c) => c.name);

/** Commands that do their work and exit, with results on stdout (they may hand it to a running service). */
export const ONE_SHOT_COMMANDS: readonly string[] = TABLE.filter((c) => !c.serves).map(
  (c) => c.name,
);

/** The others serve until stopped, on the database they open at start (the entry prepares it early). */
export const SERVING_COMMANDS: readonly string[] = TABLE.filter((c) => c.serves).map((c) => c.name);

export const isServingCommand = (command: string): boolean => SERVING_COMMANDS.includes(command);

/** How a command is called, as its refusal prints it. */
function usage({ name, takes }: Command): string {
  if ('flags' in takes) return [name, ...takes.flags.map((f) => `[${f}]`)].join(' ');
  if ('one' in takes) return `${name} ${takes.one}`;
  return name;
}

/**
 * Why a command's arguments are refused, or undefined when they are its own (and for an unknown
 * command, which is refused by name). An operator's typo (`payments:unresolved -- --al`,
 * `reindex -- --froce`, `npm start -- --port 4000`) must stop the command before it does anything,
 * not run it as if the flag had not been given and answer something else.
 */
export function argumentsProblem(command: string, args: readonly string[]): string | undefined {
  const spec = TABLE.find((c) => c.name === command);
  if (!spec || 'own' in spec.takes) return undefined;
  if ('one' in spec.takes) {
    return args.length === 1 && !args[0]!.startsWith('-') ? undefined : `usage: ${usage(spec)}`;
  }
  const { flags } = spec.takes;
  const unknown = args.filter((a, i) => !flags.includes(a) || args.indexOf(a) !== i);
  if (unknown.length === 0) return undefined;
  return `${command} does not take ${unknown.map((a) => `"${a}"`).join(', ')}: usage: ${usage(spec)}`;
}
