import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT } from '../helpers/build.js';
import { loopbackServiceEnv } from '../helpers/ports.js';
import { ON_POSTGRES } from '../helpers/postgres.js';
import { servedNode } from '../helpers/served-node.js';

/**
 * Issue 25: the built entry runs the service from its bundle (scripts/build.mjs, dist/bundle/): a
 * start loads a few dozen files instead of ~1,300 modules, every file the service finds from its
 * own module's URL (the console's templates and style sheet, the favicon, the agent guides, the
 * migrations and the database template, the worker threads' modules) is still found, the code a
 * start does not run stays in files it does not load, and Node's compile cache is kept, or not
 * when its directory cannot be made, with the same start either way.
 */
const dirs: string[] = [];
const children = new Set<ChildProcess>();
afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'built-bundle-'));
  dirs.push(dir);
  return dir;
}

// every module the main thread loads, one URL a line, written as it loads (the list survives a kill)
const RECORDER = `
import { registerHooks } from 'node:module';
import { appendFileSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';
if (isMainThread) registerHooks({
  load(url, context, next) { appendFileSync(process.env.TEST_LOADED_FILE, url + '\\n'); return next(url, context); },
});
// every host name node:dns is asked to look up (node's listen on a host asks, even for an address)
import dns from 'node:dns';
if (isMainThread) {
  const lookup = dns.lookup;
  dns.lookup = function (host, ...rest) {
    appendFileSync(process.env.TEST_LOADED_FILE, 'dns.lookup:' + host + '\\n');
    return lookup.call(this, host, ...rest);
  };
}
// and node's built-ins, whether imported or required (the bundle requires them), as it stops
if (isMainThread) process.once('exit', () => appendFileSync(process.env.TEST_LOADED_FILE,
  process.moduleLoadList.filter((m) => m.startsWith('NativeModule ')).map((m) => 'builtin:' + m.slice(13) + '\\n').join('')));`;

interface Run {
  base: string;
  output: () => string;
  loaded: () => string[];
  stop(): Promise<number | null>;
}

/** `npm start`'s node flags and environment, `serve` on a fresh DATA_DIR, until healthy. */
async function serve(extraEnv: Record<string, string>): Promise<Run> {
  const dir = await tempDir();
  const recorder = path.join(dir, 'recorder.mjs');
  const loadedFile = path.join(dir, 'loaded.txt');
  await writeFile(recorder, RECORDER);
  await writeFile(loadedFile, '');
  const { base, env } = await loopbackServiceEnv(path.join(dir, 'data'), 'info');
  const node = servedNode();
  const child = spawn(
    process.execPath,
    [...node.execArgv, '--import', pathToFileURL(recorder).href, 'dist/src/main.js', 'serve'],
    {
      cwd: ROOT,
      env: { ...env, ...node.env, DATABASE_URL: '', TEST_LOADED_FILE: loadedFile, ...extraEnv },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  children.add(child);
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  let gone = false;
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      gone = true;
      children.delete(child);
      resolve(code);
    }),
  );
  for (;;) {
    expect(gone, out).toBe(false);
    const ok = await fetch(`${base}/api/v1/health`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) break;
    await sleep(50);
  }
  return {
    base,
    output: () => out,
    loaded: () => readFileSync(loadedFile, 'utf8').split('\n').filter(Boolean),
    async stop() {
      if (!gone) child.kill('SIGTERM');
      return exited;
    },
  };
}

const inRoot = (url: string) => url.replace(pathToFileURL(ROOT).href + '/', '');

describe.skipIf(ON_POSTGRES)('the built entry, bundled', () => {
  it('loads the service from dist/bundle, finds its files, and leaves the lazy code unloaded', async () => {
    await ensureBuilt();
    // Node's own place for the cache the entry turns on: node-compile-cache in the temporary directory
    const tmp = await tempDir();
    const run = await serve({ TMPDIR: tmp });
    try {
      expect(run.output()).toContain(
        'first start: creating the embedded database from its template',
      );
      // the warnings the early threads' failures would log (they fall back, slower, in silence otherwise)
      expect(run.output()).not.toMatch(/EMBEDDED_DB_PARSER_BASELINE|initdb/);
      // files found from each module's own URL: templates, the style sheet, the favicon, the guides
      for (const [url, type] of [
        ['/console.css', 'text/css'],
        ['/admin/login', 'text/html'],
        ['/favicon.svg', 'image/svg+xml'],
        ['/agent-usage', 'text/markdown'],
        ['/api/v1/skills', 'application/json'],
      ] as const) {
        const res = await fetch(run.base + url);
        expect(res.status, url).toBe(200);
        expect(res.headers.get('content-type'), url).toContain(type);
        expect((await res.text()).length, url).toBeGreaterThan(100);
      }
    } finally {
      expect(await run.stop()).toBe(0);
    }

    const ours = run.loaded().filter((u) => u.startsWith(pathToFileURL(ROOT).href + '/dist/'));
    const bundled = ours.filter((u) => inRoot(u).startsWith('dist/bundle/'));
    // the entry, then the bundle's files only: none of tsc's ~300 modules of the service
    expect(ours.filter((u) => !bundled.includes(u)).map(inRoot)).toEqual(['dist/src/main.js']);
    expect(bundled.length).toBeGreaterThan(1);
    expect(bundled.length).toBeLessThan(60);

    // what the loaded files were made of (esbuild's metafile): not the lazily loaded code
    const meta = JSON.parse(readFileSync(path.join(ROOT, 'dist/bundle/meta.json'), 'utf8')) as {
      outputs: Record<string, { inputs: Record<string, unknown> }>;
    };
    const inputs = bundled.flatMap((u) => Object.keys(meta.outputs[inRoot(u)]?.inputs ?? {}));
    expect(inputs).toContain('src/x402/guard.ts');
    expect(inputs.some((i) => i.startsWith('node_modules/fastify/'))).toBe(true);
    expect(
      inputs.filter((i) =>
        /^node_modules\/(@x402\/extensions\/|ajv\/|@fastify\/ajv-compiler\/|@modelcontextprotocol\/)|^src\/x402\/(siwx|payment-identifier)\.ts$/.test(
          i,
        ),
      ),
    ).toEqual([]);

    // the built-ins a package requires for a path never taken (scripts/build.mjs lazyBuiltins):
    // Fastify's HTTP/2 and HTTPS servers, postgres.js's TLS connections
    const builtins = run.loaded().filter((u) => u.startsWith('builtin:'));
    expect(builtins).toContain('builtin:http');
    expect(builtins.filter((b) => /^builtin:(http2|https|tls)$/.test(b))).toEqual([]);

    // HOST is an address: the socket is bound as is, no lookup (node's listen on a host looks it up
    // and compiles net.isIPv6's regular expression on the way to the first healthy answer)
    expect(run.loaded().filter((l) => l.startsWith('dns.lookup:'))).toEqual([]);

    // no package both in the bundle and loaded from node_modules: two copies of one package (its
    // classes for instanceof, its singletons, twice its memory)
    const pkg = (p: string) => /.*node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(p)?.[1];
    const inBundle = new Set(
      Object.values(meta.outputs).flatMap((o) => Object.keys(o.inputs).map(pkg)),
    );
    const fromNodeModules = new Set(run.loaded().flatMap((u) => pkg(u) ?? []));
    expect(fromNodeModules).toContain('@electric-sql/pglite');
    expect([...fromNodeModules].filter((p) => inBundle.has(p))).toEqual([]);

    // Node's compile cache was written as the process stopped
    expect(
      readdirSync(path.join(tmp, 'node-compile-cache'), { recursive: true }).length,
    ).toBeGreaterThan(10);
  }, 180_000);

  it("holds the bundle's source at one byte a character: every file ASCII, no earlier build's chunks", async () => {
    await ensureBuilt();
    const dir = path.join(ROOT, 'dist/bundle');
    const meta = JSON.parse(readFileSync(path.join(dir, 'meta.json'), 'utf8')) as {
      outputs: Record<string, unknown>;
    };
    const files = readdirSync(dir).filter((f) => f.endsWith('.js'));
    // V8 keeps a source with one character outside Latin-1 at two bytes a character, all of it:
    // a `—` in a comment doubled the 2.5 MB chunk every start loads (scripts/build.mjs)
    const wide = files
      .map((f) => [f, /[^\0-\x7f]/u.exec(readFileSync(path.join(dir, f), 'utf8'))?.[0]] as const)
      .filter(([, c]) => c !== undefined);
    expect(wide).toEqual([]);
    expect(files.filter((f) => !(`dist/bundle/${f}` in meta.outputs))).toEqual([]);
  });

  it('starts as well where the compile cache cannot be kept', async () => {
    await ensureBuilt();
    const file = path.join(await tempDir(), 'a-file');
    await writeFile(file, '');
    // the temporary directory a file: the cache's directory cannot be made in it
    const run = await serve({ TMPDIR: file });
    const res = await fetch(`${run.base}/console.css`);
    expect(res.status).toBe(200);
    expect(await run.stop()).toBe(0);
  }, 180_000);

  it("answers the operator's scrape of /metrics (docs/operating.md), prom-client loaded from its chunk", async () => {
    await ensureBuilt();
    const token = 'metrics-token-0123456789abcdef';
    const run = await serve({ METRICS_TOKEN: token });
    try {
      const res = await fetch(`${run.base}/metrics`, {
        headers: { authorization: `Bearer ${token}` },
      });
      const body = await res.text();
      expect(res.status, run.output()).toBe(200);
      expect(body).toContain('marketplace_http_requests_total');
      expect(body).toContain('process_resident_memory_bytes');
      // the scrape left the process serving
      expect((await fetch(`${run.base}/api/v1/health`)).status).toBe(200);
    } finally {
      expect(await run.stop()).toBe(0);
    }
  }, 180_000);
});
