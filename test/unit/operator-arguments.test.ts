import { describe, expect, it } from 'vitest';
import { argumentsProblem, COMMANDS } from '../../src/command-names.js';
import { runModerate } from '../../src/domain/feedback/moderation.js';

/**
 * An operator's typo in a command's arguments stops the command before it does anything: before,
 * `payments:unresolved -- --al` listed only the old settlements, `reindex -- --froce` recomputed
 * nothing it was asked to, and `moderate list --all` printed the first 100, each exiting 0.
 */
describe('operator commands refuse arguments they do not take', () => {
  it('each command accepts its own flags and nothing else', () => {
    const accepted: Array<[string, string[]]> = [
      ['serve', []],
      ['worker', []],
      ['migrate', []],
      ['demo', []],
      ['reindex', []],
      ['reindex', ['--force']],
      ['previews', ['--force']],
      ['unresolved-payments', []],
      ['unresolved-payments', ['--all']],
      ['attestation-withdraw', ['0x1111111111111111111111111111111111111111']],
      ['moderate', ['list', '--limit', '5']], // moderate parses its own (below)
    ];
    for (const [c, args] of accepted)
      expect(argumentsProblem(c, args), `${c} ${args}`).toBe(undefined);

    const refused: Array<[string, string[], RegExp]> = [
      ['unresolved-payments', ['--al'], /"--al".*usage: unresolved-payments \[--all\]/],
      ['unresolved-payments', ['all'], /"all"/],
      ['unresolved-payments', ['--all', '--all'], /"--all"/],
      ['reindex', ['--froce'], /"--froce".*usage: reindex \[--force\]/],
      ['previews', ['--force', 'now'], /"now"/],
      ['migrate', ['--dry-run'], /"--dry-run".*usage: migrate$/],
      ['serve', ['--port', '4000'], /"--port", "4000"/],
      ['worker', ['x'], /"x"/],
      ['demo', ['--reset'], /"--reset"/],
      ['attestation-withdraw', [], /usage: attestation-withdraw/],
      ['attestation-withdraw', ['0x11', '0x22'], /usage: attestation-withdraw/],
      ['attestation-withdraw', ['--help'], /usage: attestation-withdraw/],
    ];
    for (const [c, args, message] of refused) {
      expect(argumentsProblem(c, args), `${c} ${args}`).toMatch(message);
    }
    // every command is covered by one of the two lists above
    const covered = new Set([...accepted, ...refused].map(([c]) => c));
    expect([...covered].sort()).toEqual([...COMMANDS].sort());
  });

  it('moderate list takes only --limit N; a stray argument lists nothing', async () => {
    const listed: number[] = [];
    const desk = {
      list: async (limit: number) => {
        listed.push(limit);
        return [];
      },
      judge: async () => [],
    };
    for (const args of [
      ['list', '--all'],
      ['list', 'extra'],
      ['list', '--limit', '5', '--all'],
      ['list', 'x', '--limit', '5'],
      ['list', '--limit'],
    ]) {
      const r = await runModerate(desk, args);
      expect(r.ok, args.join(' ')).toBe(false);
      expect(r.lines[0], args.join(' ')).toMatch(/^usage: moderate|--limit needs a whole number/);
    }
    expect(listed).toEqual([]);
    await runModerate(desk, []);
    await runModerate(desk, ['list']);
    await runModerate(desk, ['list', '--limit', '7']);
    expect(listed).toEqual([100, 100, 7]);
  });
});
