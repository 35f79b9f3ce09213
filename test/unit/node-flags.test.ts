import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { HINT_FLAGS } from '../../src/db/parser-baseline.js';

/**
 * The node flags `npm start`, the other npm scripts and the image run with include V8's
 * experimental `--experimental-wasm-compilation-hints`: a Node whose V8 drops a flag refuses to
 * start at all (`node: bad option: ...`, exit 9). `process.allowedNodeEnvironmentFlags` does not
 * list V8's flags, so each one is tried on the running Node, here in `npm test`, before an upgrade
 * reaches a deployment (docs/operating.md, Memory, says what to do when this fails).
 */
const ROOT = path.resolve(import.meta.dirname, '../..');

/** Every flag given to `node` by an npm script or the Dockerfile's CMD (a `--import` with its module). */
function deployedFlags(): string[] {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  const commands = Object.values(pkg.scripts);
  const cmd = /^CMD (\[.*\])$/m.exec(readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8'));
  if (cmd) commands.push((JSON.parse(cmd[1]!) as string[]).join(' '));
  const flags = new Set<string>();
  for (const command of commands) {
    const words = command.split(/\s+/);
    for (let i = words.indexOf('node') + 1; i > 0 && words[i]?.startsWith('--'); i++) {
      // a flag with its value as the next word
      if (words[i] === '--import') flags.add(`--import ${words[++i]}`);
      else flags.add(words[i]!);
    }
  }
  return [...flags];
}

/** How the running Node answers `node <flag> -e 0`: its exit code and what it wrote. */
function tryFlag(flag: string) {
  const r = spawnSync(process.execPath, [...flag.split(' '), '-e', '0'], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  return { flag, status: r.status, stderr: r.stderr.trim() };
}

describe('the node flags the scripts and the image start with', () => {
  const flags = deployedFlags();

  it('are found where they are given (npm start, dev and the image)', () => {
    expect(flags).toEqual(expect.arrayContaining([...HINT_FLAGS, '--max-semi-space-size=8']));
    expect(flags).toContain('--import tsx');
  });

  it('are each accepted by the running Node (a dropped V8 flag would stop every start)', () => {
    // --watch needs a file to run; it is node's own option, not V8's
    const refused = flags
      .filter((f) => f !== '--watch')
      .map(tryFlag)
      .filter((r) => r.status !== 0);
    expect(
      refused,
      `Node ${process.version} refuses these flags; see docs/operating.md, Memory`,
    ).toEqual([]);
  });

  it('are refused by node when unknown (the check can fail)', () => {
    expect(tryFlag('--experimental-wasm-no-such-flag')).toMatchObject({
      status: 9,
      stderr: expect.stringContaining('bad option') as unknown,
    });
  });
});

describe('processes that open and drop many embedded databases', () => {
  // V8 13.6 (every Node 24.x so far) can free a dying wasm-to-JS import wrapper twice and abort
  // (`jit_page_->allocations_.erase(addr) == 1`) in a process that drops PGlite instances and opens
  // new ones: docs/testing.md, "A V8 fatal under PGlite churn"
  it('test workers run without the wasm code GC (vitest.config.ts execArgv)', () => {
    expect(process.execArgv).toContain('--no-wasm-code-gc');
  });

  it('npm run bench runs without it too (the relevance benches open several)', () => {
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(pkg.scripts.bench).toMatch(/^tsx --no-wasm-code-gc /);
    expect(tryFlag('--no-wasm-code-gc').status).toBe(0);
  });
});
