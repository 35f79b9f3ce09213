import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, realpathSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT } from '../helpers/build.js';
import { loopbackServiceEnv } from '../helpers/ports.js';
import { ON_POSTGRES } from '../helpers/postgres.js';
import { servedNode } from '../helpers/served-node.js';

/**
 * Issue 25: the built entry as `npm start` runs it, on a fresh data directory (the entry locks it
 * and unpacks the migrated template on a thread of its own while the modules load; openDatabase
 * adopts both) and then on the same, existing one. The embedded database only.
 */
const dirs: string[] = [];
const children = new Set<ChildProcess>();
afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

interface Run {
  output: () => string;
  exited: Promise<number | null>;
  healthy: Promise<boolean>;
  stop(): Promise<number | null>;
}

/** `npm start`'s node flags and environment, `serve` on DATA_DIR `dataDir`, answering on loopback. */
async function serve(dataDir: string, extraEnv: Record<string, string> = {}): Promise<Run> {
  const { base, env } = await loopbackServiceEnv(dataDir, 'info');
  const node = servedNode();
  const child = spawn(process.execPath, [...node.execArgv, 'dist/src/main.js', 'serve'], {
    cwd: ROOT,
    env: { ...env, ...node.env, DATABASE_URL: '', ...extraEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      children.delete(child);
      resolve(code);
    }),
  );
  let gone = false;
  void exited.then(() => (gone = true));
  const healthy = (async () => {
    while (!gone) {
      const ok = await fetch(`${base}/api/v1/health`).then(
        (r) => r.status === 200,
        () => false,
      );
      if (ok) return true;
      await sleep(50);
    }
    return false;
  })();
  return {
    output: () => out,
    exited,
    healthy,
    async stop() {
      if (!gone) child.kill('SIGTERM');
      return exited;
    },
  };
}

const FIRST_START = 'first start: creating the embedded database from its template';

describe.skipIf(ON_POSTGRES)('the built entry on a fresh, then an existing, data directory', () => {
  it('makes the database from the template, serves, and serves it again after a restart', async () => {
    await ensureBuilt();
    const dataDir = await mkdtemp(path.join(tmpdir(), 'built-start-'));
    dirs.push(dataDir);
    const lock = path.join(dataDir, 'embedded-db.pid');

    const first = await serve(dataDir);
    expect(await first.healthy, first.output()).toBe(true);
    expect(first.output()).toContain(FIRST_START);
    expect(first.output()).not.toMatch(/initdb/);
    // the lock the entry took early is the process's own, released at the stop
    expect(JSON.parse(await readFile(lock, 'utf8'))).toMatchObject({
      dir: realpathSync(dataDir),
    });
    expect(existsSync(path.join(dataDir, 'pg', 'PG_VERSION'))).toBe(true);
    expect(existsSync(path.join(dataDir, 'pg.unpacking'))).toBe(false);
    expect(await first.stop()).toBe(0);
    expect(existsSync(lock)).toBe(false);

    const second = await serve(dataDir);
    expect(await second.healthy, second.output()).toBe(true);
    expect(second.output()).not.toContain('first start');
    expect(await second.stop()).toBe(0);
    expect(existsSync(lock)).toBe(false);
  }, 180_000);

  it('leaves a fresh data directory locked by another live process untouched, and says who holds it', async () => {
    await ensureBuilt();
    const dataDir = await mkdtemp(path.join(tmpdir(), 'built-start-'));
    dirs.push(dataDir);
    // another live process holds the lock (as a starting service would)
    const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 120000)'], {
      stdio: 'ignore',
    });
    children.add(holder);
    await writeFile(
      path.join(dataDir, 'embedded-db.pid'),
      JSON.stringify({ pid: holder.pid, dir: realpathSync(dataDir) }),
    );
    try {
      const run = await serve(dataDir);
      expect(await run.healthy).toBe(false);
      expect(await run.exited).not.toBe(0);
      expect(run.output()).toContain(`in use by process ${holder.pid}`);
      expect(existsSync(path.join(dataDir, 'pg'))).toBe(false);
      expect(existsSync(path.join(dataDir, 'pg.unpacking'))).toBe(false);
      // the holder's lock stays its own
      expect(JSON.parse(await readFile(path.join(dataDir, 'embedded-db.pid'), 'utf8')).pid).toBe(
        holder.pid,
      );
    } finally {
      holder.kill('SIGKILL');
      children.delete(holder);
    }
  }, 120_000);

  // the socket is bound before Fastify's listen on an address (src/commands.ts): a bind that
  // fails still ends the start with the operator's one line, as Node's own listen did
  it('says in one line when the port is taken or HOST is not an address of this machine', async () => {
    await ensureBuilt();
    const taken = createServer();
    taken.listen(0, '127.0.0.1');
    await once(taken, 'listening');
    const { port } = taken.address() as AddressInfo;
    try {
      for (const [extra, line] of [
        [
          { PORT: String(port) },
          `127.0.0.1:${port} is already in use: stop the other process or set PORT`,
        ],
        [{ HOST: '192.0.2.1', PORT: '0' }, 'HOST 192.0.2.1 is not an address of this machine'],
      ] as const) {
        const dataDir = await mkdtemp(path.join(tmpdir(), 'built-start-'));
        dirs.push(dataDir);
        const run = await serve(dataDir, extra);
        expect(await run.healthy).toBe(false);
        expect(await run.exited, run.output()).toBe(1);
        expect(run.output()).toContain(line);
        expect(run.output()).not.toMatch(/\n\s+at /); // no stack trace
      }
    } finally {
      taken.close();
    }
  }, 180_000);
});
