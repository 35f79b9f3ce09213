/**
 * `npm run image:check`: the Docker image, reproduced without Docker and proven by running it.
 *
 * Reads the Dockerfile and replays its stages in a clean temporary directory: the build context is
 * the repository's tracked files (`git ls-files`, as they are in the work tree, less
 * .dockerignore), the build stage's COPY and RUN lines run as written (`npm ci`, `npm run build`,
 * `scripts/prune-runtime.sh`), and the runtime stage's COPY lines assemble the image's /app. Its
 * RUN lines (the /data volume's owner) are not replayed: a temporary DATA_DIR stands in for the
 * volume. Then every entry runs from that /app with the image's ENV (HOST made 127.0.0.1: loopback
 * only): the CMD (serve) until healthy, the HEALTHCHECK command against it, `npm start`, migrate,
 * demo with a search, the MCP server answering `initialize`, `tools/list` and a search over stdio,
 * moderate list and worker. Reports the runtime node_modules size before and after the prune and
 * each step's time; exits non-zero when anything fails.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
} from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../helpers/ports.js';
import { servedNode } from '../helpers/served-node.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const KEEP = process.argv.includes('--keep');

interface Instruction {
  op: string;
  args: string;
}
interface Stage {
  name: string;
  steps: Instruction[];
}

/** The Dockerfile as stages of instructions (continuations joined, comments dropped). */
function parseDockerfile(text: string): Stage[] {
  const lines: string[] = [];
  let current = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line.startsWith('#') || !line) continue;
    if (line.endsWith('\\')) {
      current += `${line.slice(0, -1)} `;
      continue;
    }
    lines.push(current + line);
    current = '';
  }
  const stages: Stage[] = [];
  for (const line of lines) {
    const [, op = '', args = ''] = /^(\S+)\s*(.*)$/.exec(line) ?? [];
    if (op.toUpperCase() === 'FROM') {
      stages.push({ name: /\sAS\s+(\S+)/i.exec(args)?.[1] ?? String(stages.length), steps: [] });
    } else stages.at(-1)?.steps.push({ op: op.toUpperCase(), args });
  }
  return stages;
}

/** `ENV A=1 B=2` pairs. */
function envOf(args: string): Record<string, string> {
  return Object.fromEntries(
    [...args.matchAll(/(\w+)=("[^"]*"|\S+)/g)].map((m) => [m[1]!, m[2]!.replace(/^"|"$/g, '')]),
  );
}

/** `COPY [--from=x] [--chown=y] src... dest`. */
function copyOf(args: string): { from?: string; sources: string[]; dest: string } {
  const words = args.split(/\s+/).filter(Boolean);
  const from = words.find((w) => w.startsWith('--from='))?.slice('--from='.length);
  const paths = words.filter((w) => !w.startsWith('--'));
  return { from, sources: paths.slice(0, -1), dest: paths.at(-1)! };
}

/** `["a", "b"]` exec form, or a shell-form string run by sh -c. */
function commandOf(args: string): string[] {
  const json = args.replace(/^CMD\s+/i, '').trim();
  if (json.startsWith('[')) return JSON.parse(json) as string[];
  return ['sh', '-c', json];
}

function bytesUnder(dir: string): { bytes: number; files: number } {
  let bytes = 0;
  let files = 0;
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!e.isFile()) continue;
    bytes += statSync(path.join(e.parentPath, e.name)).size;
    files++;
  }
  return { bytes, files };
}
const mb = (b: number) => Math.round((b / 2 ** 20) * 10) / 10;

// --- steps and their report -----------------------------------------------------------------

const results: Array<{ step: string; ok: boolean; seconds: number; detail?: string }> = [];

async function step(name: string, fn: () => Promise<string | void>): Promise<boolean> {
  const started = performance.now();
  process.stderr.write(`image:check ${name} ...\n`);
  try {
    const detail = await fn();
    results.push({ step: name, ok: true, seconds: secs(started), ...(detail && { detail }) });
    return true;
  } catch (e) {
    const detail = e instanceof Error ? e.message : String(e);
    results.push({ step: name, ok: false, seconds: secs(started), detail });
    process.stderr.write(`image:check ${name} FAILED: ${detail}\n`);
    return false;
  }
}
const secs = (since: number) => Math.round((performance.now() - since) / 100) / 10;

function run(cmd: string[], cwd: string, env: Record<string, string> = {}): string {
  const res = spawnSync(cmd[0]!, cmd.slice(1), {
    cwd,
    env: { ...process.env, ...env },
    encoding: 'utf8',
    maxBuffer: 64 * 2 ** 20,
  });
  if (res.status !== 0) {
    throw new Error(
      `${cmd.join(' ')} exited ${res.status ?? res.signal}: ${(res.stderr + res.stdout).slice(-2000)}`,
    );
  }
  return res.stdout;
}

/** How long a stopping entry may take before it is taken for hung (see Entry.stop). */
const STOP_SAFETY_NET = 180_000;

/** A long-running entry of the image, its output kept for checks and failures. */
class Entry {
  out = '';
  readonly exited: Promise<number | null>;
  constructor(readonly child: ChildProcess) {
    child.stdout?.on('data', (d: Buffer) => (this.out += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (this.out += d.toString()));
    this.exited = new Promise((r) => child.once('exit', (code) => r(code)));
  }
  async healthy(base: string, seconds = 180): Promise<void> {
    const deadline = Date.now() + seconds * 1000;
    for (;;) {
      if (this.child.exitCode !== null)
        throw new Error(`exited ${this.child.exitCode}: ${this.out.slice(-2000)}`);
      const ok = await fetch(`${base}/api/v1/health`).then(
        (r) => r.status === 200,
        () => false,
      );
      if (ok) return;
      if (Date.now() > deadline)
        throw new Error(`not healthy in ${seconds} s: ${this.out.slice(-2000)}`);
      await sleep(100);
    }
  }
  /**
   * SIGTERM, and a clean exit (0). Under `npm start`, npm passes the signal on and ends at once;
   * the service has stopped when it released the embedded database (`lockFile`). The bound
   * (STOP_SAFETY_NET) only keeps a hung process from holding the check forever: the worker took
   * 7.5 s by hand and over 20 s at load ~20 on two cores, so it says nothing about speed.
   */
  async stop(lockFile?: string): Promise<void> {
    if (this.child.exitCode !== null) throw new Error(`had exited ${this.child.exitCode}`);
    this.child.kill('SIGTERM');
    const code = await Promise.race([
      this.exited,
      // unreferenced: a safety net that is not needed must not hold the check open after its last
      // step (a referenced 180 s timer kept every CI run waiting up to 3 min after the summary)
      sleep(STOP_SAFETY_NET, undefined, { ref: false }).then(() => 'timeout' as const),
    ]);
    if (code === 'timeout') {
      this.child.kill('SIGKILL');
      throw new Error(`did not stop within ${STOP_SAFETY_NET / 1000} s of SIGTERM (hung)`);
    }
    if (lockFile) {
      const deadline = Date.now() + STOP_SAFETY_NET;
      while (existsSync(lockFile)) {
        if (Date.now() > deadline)
          throw new Error(`the service under npm did not stop within ${STOP_SAFETY_NET / 1000} s`);
        await sleep(100);
      }
      return;
    }
    if (code !== 0) throw new Error(`exited ${code} on SIGTERM: ${this.out.slice(-2000)}`);
  }
}

// --- the reproduction ------------------------------------------------------------------------

const started = performance.now();
const work = mkdtempSync(path.join(tmpdir(), 'image-check-'));
const context = path.join(work, 'context');
const stageDirs: Record<string, string> = {};
const stages = parseDockerfile(readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8'));
const [build, runtime] = [stages[0]!, stages.at(-1)!];
let imageEnv: Record<string, string> = {};
let cmd: string[] = [];
let healthcheck: string[] = [];
const sizes: Record<string, unknown> = {};

try {
  await step(
    'Node: the base images, package.json engines and this Node are one major',
    async () => {
      const bases = [
        ...readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8').matchAll(/^FROM\s+node:(\d+)\S*/gim),
      ].map((m) => Number(m[1]));
      const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
        engines: { node: string };
      };
      const engines = Number(/^>=\s*(\d+)/.exec(pkg.engines.node)?.[1]);
      const running = Number(process.versions.node.split('.')[0]);
      // what CI tests (.ci/run installs this major when the machine's Node is older) is what the image runs
      if (!bases.length || bases.some((b) => b !== engines) || running !== engines)
        throw new Error(
          `base images node:${bases.join(', node:')}, engines ${pkg.engines.node}, running ${process.version}`,
        );
      return `node:${engines}, running ${process.version}`;
    },
  );
  await step('build context: tracked files less .dockerignore', async () => {
    const ignored = readFileSync(path.join(ROOT, '.dockerignore'), 'utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'));
    const tracked = run(['git', 'ls-files', '-z'], ROOT).split('\0').filter(Boolean);
    let n = 0;
    for (const file of tracked) {
      const top = file.split('/')[0]!;
      if (ignored.some((p) => p === top || (p.startsWith('*') && file.endsWith(p.slice(1)))))
        continue;
      if (!existsSync(path.join(ROOT, file))) continue; // deleted in the work tree
      mkdirSync(path.dirname(path.join(context, file)), { recursive: true });
      cpSync(path.join(ROOT, file), path.join(context, file));
      n++;
    }
    return `${n} files`;
  });

  for (const stage of [build, runtime]) {
    const dir = path.join(work, stage.name);
    stageDirs[stage.name] = dir;
    mkdirSync(dir, { recursive: true });
    for (const s of stage.steps) {
      if (s.op === 'COPY') {
        const c = copyOf(s.args);
        const ok = await step(
          `${stage.name}: COPY ${c.from ? `--from=${c.from} ` : ''}${c.sources.join(' ')}`,
          async () => {
            for (const src of c.sources) {
              const from = c.from
                ? path.join(stageDirs[c.from]!, path.relative('/app', path.resolve('/app', src)))
                : path.join(context, src);
              const destIsDir = c.dest.endsWith('/') || c.sources.length > 1;
              const to = destIsDir
                ? path.join(dir, c.dest, statSync(from).isDirectory() ? '' : path.basename(src))
                : path.join(dir, c.dest);
              mkdirSync(path.dirname(to), { recursive: true });
              cpSync(from, to, { recursive: true });
            }
          },
        );
        if (!ok) throw new Error('stage failed');
      } else if (s.op === 'RUN' && stage === build) {
        const ok = await step(`${stage.name}: RUN ${s.args}`, async () => {
          // the npm cache is the registry's copy: no revalidation round trips
          run(['sh', '-c', s.args], dir, { npm_config_prefer_offline: 'true' });
          if (/\bnpm ci\b/.test(s.args)) {
            const before = bytesUnder(path.join(dir, 'node_modules'));
            sizes.installedNodeModulesMb = mb(before.bytes);
            sizes.installedFiles = before.files;
          }
        });
        if (!ok) throw new Error('stage failed');
      } else if (s.op === 'RUN') {
        results.push({
          step: `${stage.name}: RUN ${s.args}`,
          ok: true,
          seconds: 0,
          detail: 'not replayed: a temporary DATA_DIR stands in for the volume',
        });
      } else if (s.op === 'ENV') {
        imageEnv = { ...imageEnv, ...envOf(s.args) };
      } else if (s.op === 'CMD') {
        cmd = commandOf(s.args);
      } else if (s.op === 'HEALTHCHECK') {
        healthcheck = commandOf(s.args.slice(s.args.toUpperCase().indexOf('CMD')));
      }
    }
  }

  const app = stageDirs[runtime.name]!;
  await step('runtime: what /app holds', async () => {
    const after = bytesUnder(path.join(app, 'node_modules'));
    sizes.runtimeNodeModulesMb = mb(after.bytes);
    sizes.runtimeFiles = after.files;
    const present = ['tsx', 'typescript', 'vitest', 'hardhat', 'solc'].filter((p) =>
      existsSync(path.join(app, 'node_modules', p)),
    );
    if (present.length) throw new Error(`dev tools left in node_modules: ${present.join(', ')}`);
    if (existsSync(path.join(app, 'src')) || existsSync(path.join(app, 'test')))
      throw new Error('sources in the image');
    const maps = readdirSync(path.join(app, 'dist'), { recursive: true }).filter((f) =>
      String(f).endsWith('.map'),
    );
    if (maps.length) throw new Error(`${maps.length} source maps in dist/`);
    return `node_modules ${sizes.installedNodeModulesMb} MB installed -> ${sizes.runtimeNodeModulesMb} MB in the image`;
  });

  // --- every entry, from the image's /app, with its ENV --------------------------------------
  const dataDir = path.join(work, 'data');
  mkdirSync(dataDir);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env = {
    ...imageEnv,
    HOST: '127.0.0.1',
    PORT: String(port),
    DATA_DIR: dataDir,
    PUBLIC_BASE_URL: base,
    LOG_LEVEL: 'info',
  };
  const entry = (argv: string[], extra: Record<string, string> = {}) =>
    new Entry(
      spawn(argv[0]!, argv.slice(1), {
        cwd: app,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env, ...extra },
        stdio: ['pipe', 'pipe', 'pipe'],
      }),
    );

  await step('migrate: node dist/src/main.js migrate', async () => {
    const e = entry(['node', 'dist/src/main.js', 'migrate']);
    if ((await e.exited) !== 0) throw new Error(e.out.slice(-2000));
  });
  await step(
    `CMD ${cmd.join(' ')}: npm start's node settings, healthy, HEALTHCHECK passes, GET / answers, stops on SIGTERM`,
    async () => {
      if (cmd[0] !== 'node') throw new Error(`unexpected CMD ${cmd.join(' ')}`);
      // the image runs node as `npm start` does: the same memory settings (docs/operating.md, "Memory")
      const served = servedNode(app);
      // npm run worker and npm run demo run node as npm start does (only the command differs)
      const scripts = (
        JSON.parse(readFileSync(path.join(app, 'package.json'), 'utf8')) as {
          scripts: Record<string, string>;
        }
      ).scripts;
      for (const name of ['worker', 'demo'])
        if (scripts[name] !== scripts.start!.replace(/ serve$/, ` ${name}`))
          throw new Error(`npm run ${name} does not run node as npm start does: ${scripts[name]}`);
      const flags = cmd.slice(1, cmd.indexOf('dist/src/main.js'));
      if (flags.join(' ') !== served.execArgv.join(' '))
        throw new Error(`CMD node flags "${flags.join(' ')}" differ from npm start's`);
      for (const [k, v] of Object.entries(served.env))
        if (imageEnv[k] !== v)
          throw new Error(`ENV ${k}=${imageEnv[k]} differs from npm start's ${v}`);
      const e = entry(cmd);
      try {
        await e.healthy(base);
        const probe = spawnSync(healthcheck[0]!, healthcheck.slice(1), {
          cwd: app,
          env: { ...process.env, ...env },
        });
        if (probe.status !== 0)
          throw new Error(`HEALTHCHECK ${healthcheck.join(' ')} exited ${probe.status}`);
        const home = await fetch(`${base}/`);
        if (home.status !== 200) throw new Error(`GET / answered ${home.status}`);
      } finally {
        await e.stop();
      }
    },
  );
  await step('npm start: healthy, no warning from Node or npm, stops on SIGTERM', async () => {
    const e = entry(['npm', 'start']);
    try {
      await e.healthy(base);
    } finally {
      await e.stop(path.join(dataDir, 'embedded-db.pid'));
    }
    // an engine mismatch (npm warn EBADENGINE), a deprecated API (DEP0xxx), an experimental one
    const warned = /npm warn|DeprecationWarning|ExperimentalWarning|\(node:\d+\) \w*Warning/i.exec(
      e.out,
    );
    if (warned)
      throw new Error(`warned at start: ${e.out.slice(warned.index, warned.index + 300)}`);
  });
  await step(
    'demo: node dist/src/main.js demo, a search finds listings, the MCP server over stdio',
    async () => {
      const e = entry(['node', 'dist/src/main.js', 'demo']);
      try {
        await e.healthy(base);
        const found = (await (await fetch(`${base}/api/v1/search?q=csv`)).json()) as unknown[];
        if (!found.length) throw new Error('the demo search found nothing');
        return `${found.length} listings for "csv"; MCP: ${await mcpCheck(app, base)}`;
      } finally {
        await e.stop();
      }
    },
  );
  await step('moderate: node dist/src/main.js moderate list', async () => {
    const e = entry(['node', 'dist/src/main.js', 'moderate', 'list']);
    if ((await e.exited) !== 0) throw new Error(e.out.slice(-2000));
  });
  await step('worker: node dist/src/main.js worker starts and stops on SIGTERM', async () => {
    const e = entry(['node', 'dist/src/main.js', 'worker']);
    try {
      const deadline = Date.now() + 120_000;
      while (!e.out.includes('worker started')) {
        if (e.child.exitCode !== null)
          throw new Error(`exited ${e.child.exitCode}: ${e.out.slice(-2000)}`);
        if (Date.now() > deadline) throw new Error('no "worker started" within 120 s');
        await sleep(100);
      }
    } finally {
      await e.stop();
    }
  });

  /** The MCP server from the image over stdio: initialize, tools/list, one search_items call. */
  async function mcpCheck(appDir: string, marketplace: string): Promise<string> {
    const e = entry(['node', 'dist/mcp/main.js'], {
      MARKETPLACE_URL: marketplace,
      MCP_DATA_DIR: path.join(work, 'mcp'),
    });
    const replies: Array<{ id?: number; result?: Record<string, unknown>; error?: unknown }> = [];
    let buffer = '';
    e.child.stdout!.on('data', (d: Buffer) => {
      buffer += d.toString();
      let nl;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        if (line.trim()) replies.push(JSON.parse(line) as (typeof replies)[number]);
      }
    });
    const send = (msg: object) =>
      e.child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', ...msg })}\n`);
    const reply = async (id: number) => {
      const deadline = Date.now() + 60_000;
      for (;;) {
        const r = replies.find((x) => x.id === id);
        if (r) {
          if (r.error) throw new Error(`MCP error: ${JSON.stringify(r.error)}`);
          return r.result!;
        }
        if (e.child.exitCode !== null) throw new Error(`MCP server exited: ${e.out.slice(-2000)}`);
        if (Date.now() > deadline) throw new Error('MCP server did not answer within 60 s');
        await sleep(20);
      }
    };
    try {
      send({
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'image-check', version: '1.0.0' },
        },
      });
      const init = await reply(1);
      send({ method: 'notifications/initialized' });
      send({ id: 2, method: 'tools/list' });
      const tools = (await reply(2)).tools as Array<{ name: string }>;
      send({
        id: 3,
        method: 'tools/call',
        params: { name: 'search_items', arguments: { q: 'csv' } },
      });
      const search = await reply(3);
      if (search.isError) throw new Error(`search_items: ${JSON.stringify(search.content)}`);
      const info = init.serverInfo as { name: string; version: string };
      return `${info.name} ${info.version}, ${tools.length} tools, search_items answered`;
    } finally {
      e.child.stdin!.end();
      const code = await Promise.race([
        e.exited,
        sleep(10_000, undefined, { ref: false }).then(() => 'timeout' as const),
      ]);
      if (code === 'timeout') e.child.kill('SIGKILL');
    }
  }
} catch (e) {
  // a failed stage is already reported; anything else is reported here
  const detail = e instanceof Error ? e.message : String(e);
  if (detail !== 'stage failed')
    results.push({ step: 'image:check itself', ok: false, seconds: 0, detail });
} finally {
  const failed = results.filter((r) => !r.ok);
  const summary = {
    ok: failed.length === 0 && results.length > 0,
    seconds: secs(started),
    loadavg: loadavg().map((x) => Math.round(x * 100) / 100),
    ...sizes,
    steps: results,
  };
  console.log(JSON.stringify(summary, null, 2));
  if (KEEP) process.stderr.write(`image:check kept ${work}\n`);
  else rmSync(work, { recursive: true, force: true });
  process.exitCode = summary.ok ? 0 : 1;
}
