import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT } from '../helpers/build.js';

/**
 * Issue 25: what the service's start loads. Module loading is most of an existing-directory start's
 * main thread, so code a start does not run loads at its first use instead: the x402 extensions
 * (sign-in-with-x, payment-identifier, and ajv with them) at the guard's first call, Fastify's own
 * schema compilers never (every route uses zod's). The built modules of a `serve` start (the
 * runtime and the app), loaded in a child process that records every module it loads.
 */
describe('the modules a start loads', () => {
  it('leave out the code that serves no start: the x402 extensions, ajv, fast-json-stringify and undici', async () => {
    await ensureBuilt();
    const built = (f: string) => pathToFileURL(path.join(ROOT, 'dist/src', f)).href;
    // a start as `serve` makes it, on an in-memory database: the runtime, the app, ready
    const script = `
      import { registerHooks } from 'node:module';
      const loaded = [];
      registerHooks({ load(url, context, next) { loaded.push(url); return next(url, context); } });
      const { loadConfig } = await import(${JSON.stringify(built('config.js'))});
      const { createRuntime } = await import(${JSON.stringify(built('runtime.js'))});
      const { buildApp } = await import(${JSON.stringify(built('http/app.js'))});
      await import(${JSON.stringify(built('http/metrics-server.js'))});
      const config = loadConfig({ EMBEDDED_DB_IN_MEMORY: 'true', LOG_LEVEL: 'silent' });
      const runtime = await createRuntime(config);
      const app = await buildApp(config, runtime.deps);
      await app.ready();
      const health = await app.inject({ url: '/api/v1/health' });
      await app.close();
      await runtime.close();
      const undici = process.moduleLoadList.filter((m) => m.includes('undici'));
      console.log(JSON.stringify({ loaded, health: health.statusCode, undici }));`;
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--input-type=module', '-e', script],
      { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 },
    );
    const { loaded, health, undici } = JSON.parse(stdout) as {
      loaded: string[];
      health: number;
      undici: string[];
    };
    expect(health).toBe(200);
    // node's fetch implementation, which an ES import of node:http loads through its ES facade
    // (~60 ms): node:http is taken from its CommonJS exports instead (src/http/error-handler.ts)
    expect(undici).toEqual([]);
    // the service itself is loaded (the recording works)
    expect(loaded.some((u) => u.includes('/dist/src/x402/guard.js'))).toBe(true);
    expect(loaded.some((u) => u.includes('/node_modules/fastify/'))).toBe(true);
    const left = loaded.filter((u) =>
      /\/node_modules\/(@x402\/extensions\/|ajv\/|@fastify\/ajv-compiler\/|fast-json-stringify\/index\.js|mime-db\/|secp256k1\/)/.test(
        u,
      ),
    );
    expect(left).toEqual([]);
    expect(
      loaded.filter((u) => /\/dist\/src\/x402\/(siwx|payment-identifier)\.js$/.test(u)),
    ).toEqual([]);
  }, 120_000);

  it('the entry decides its early start from the one list of commands, before loading the configuration or any package', async () => {
    await ensureBuilt();
    const main = path.join(ROOT, 'dist/src/main.js');
    // the entry as `node dist/src/main.js <command>` runs it; what it loaded before the commands
    const script = `
      import { registerHooks } from 'node:module';
      import { writeSync } from 'node:fs';
      const loaded = [];
      registerHooks({ load(url, context, next) { loaded.push(url); return next(url, context); } });
      process.on('exit', () => writeSync(1, JSON.stringify(loaded) + '\\n'));
      process.argv = [process.execPath, ${JSON.stringify(main)}, 'no-such-command'];
      await import(${JSON.stringify(pathToFileURL(main).href)});`;
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--input-type=module', '-e', script],
      { cwd: ROOT, env: { ...process.env, DATABASE_URL: '' } },
    ).catch((e: { stdout: string }) => e);
    const loaded = JSON.parse(stdout.trim().split('\n').at(-1)!) as string[];
    // the built entry runs from the bundle (scripts/build.mjs): dist/src/main.js imports
    // dist/bundle/main.js, which loads its shared chunks, then the commands' chunk at its import();
    // esbuild's metafile says which of our sources and which packages each loaded file holds
    const inRoot = (u: string) => path.relative(ROOT, new URL(u).pathname);
    const meta = JSON.parse(readFileSync(path.join(ROOT, 'dist/bundle/meta.json'), 'utf8')) as {
      outputs: Record<string, { inputs: Record<string, unknown> }>;
    };
    const holds = (u: string) => Object.keys(meta.outputs[inRoot(u)]?.inputs ?? {});
    const commands = loaded.findIndex((u) => holds(u).includes('src/commands.ts'));
    expect(commands).toBeGreaterThan(0);
    const early = loaded.slice(0, commands).filter((u) => !u.startsWith('node:'));
    // nothing but the entry and the bundle's files (no package, no tsc module) before the commands
    expect(early.filter((u) => !inRoot(u).startsWith('dist/bundle/')).map(inRoot)).toEqual([
      'dist/src/main.js',
    ]);
    expect(early.flatMap(holds).sort()).toEqual([
      'src/command-names.ts',
      'src/db/durable-dirs.ts',
      'src/db/first-start.ts',
      'src/db/fresh-mmap.ts',
      'src/db/lock.ts',
      'src/db/parser-baseline.ts',
      'src/db/wasm-bytes.ts',
      'src/main.ts',
    ]);
  }, 120_000);
});
