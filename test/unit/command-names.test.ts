import { describe, expect, it } from 'vitest';
import {
  COMMANDS,
  isServingCommand,
  ONE_SHOT_COMMANDS,
  SERVING_COMMANDS,
} from '../../src/command-names.js';
import { servedDataDir } from '../../src/db/first-start.js';
import { HINT_FLAGS, opensHintedDatabase } from '../../src/db/parser-baseline.js';

/**
 * The process entry (src/main.ts) prepares a serving command's database before the service's
 * modules load; which commands serve is one list (src/command-names.ts), read by both of its early
 * starts and by the commands themselves.
 */
describe('the serving commands, one list', () => {
  const flags = [...HINT_FLAGS];

  it('every command serves or is one-shot, never both', () => {
    expect([...SERVING_COMMANDS].sort()).toEqual(['demo', 'serve', 'worker']);
    for (const c of COMMANDS) expect(isServingCommand(c), c).toBe(!ONE_SHOT_COMMANDS.includes(c));
    for (const c of ONE_SHOT_COMMANDS) expect(COMMANDS).toContain(c);
    expect(isServingCommand('no-such-command')).toBe(false);
  });

  it('both early starts begin for exactly the serving ones', () => {
    for (const c of [...COMMANDS, 'no-such-command']) {
      expect(servedDataDir(c, {}) !== undefined, c).toBe(isServingCommand(c));
      expect(opensHintedDatabase(c, {}, flags), c).toBe(isServingCommand(c));
    }
  });
});
