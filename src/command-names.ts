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
