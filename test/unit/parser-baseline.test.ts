import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import {
  hintFlagsGiven,
  HINT_FLAGS,
  opensHintedDatabase,
  pgliteModule,
  pgliteWasmPath,
  WasmLayoutError,
  wasmLayout,
  withBaselineHint,
} from '../../src/db/parser-baseline.js';
import { ensureBuilt } from '../helpers/build.js';
import { captureLogs } from '../helpers/logs.js';

/**
 * Issue 25: V8 optimising PGlite's SQL parser (`raw_parser`) took ~600 MB for up to a second, the
 * embedded service's whole start peak. Under npm start's node flags the opener hands PGlite its
 * module with a compilation hint that keeps that one function on the baseline compiler.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const stock = readFileSync(pgliteWasmPath());
const { WebAssembly: wasm } = globalThis as unknown as {
  WebAssembly: {
    validate(b: Uint8Array): boolean;
    Module: { new (b: Uint8Array): object; customSections(m: object, n: string): ArrayBuffer[] };
  };
};

/** Unsigned LEB128 at `at`: [value, bytes read]. */
function leb(b: Uint8Array, at: number): [number, number] {
  let v = 0;
  let i = 0;
  for (; ; i++) {
    v += (b[at + i]! & 0x7f) * 2 ** (7 * i);
    if (!(b[at + i]! & 0x80)) return [v, i + 1];
  }
}

/** The hint bytes of a module's compilationHints section, one per declared function. */
function hintsOf(module: Uint8Array): Uint8Array {
  const sections = wasm.Module.customSections(new wasm.Module(module), 'compilationHints');
  expect(sections).toHaveLength(1);
  const body = new Uint8Array(sections[0]!);
  const [count, n] = leb(body, 0);
  expect(body.length - n).toBe(count);
  return body.subarray(n);
}

/** A module of 2 imported and 3 defined functions, the 2nd defined one exported as `raw_parser`, an import as `imported`. */
function tinyModule(): Uint8Array {
  const section = (id: number, bytes: number[]) => [id, bytes.length, ...bytes];
  const name = (s: string) => [s.length, ...Buffer.from(s)];
  return Uint8Array.from([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(1, [1, 0x60, 0, 0]), // one type: () -> ()
    ...section(2, [2, ...name('env'), ...name('a'), 0, 0, ...name('env'), ...name('b'), 0, 0]),
    ...section(3, [3, 0, 0, 0]),
    ...section(7, [2, ...name('imported'), 0, 0, ...name('raw_parser'), 0, 3]),
    ...section(10, [3, 2, 0, 0x0b, 2, 0, 0x0b, 2, 0, 0x0b]),
  ]);
}

describe('the SQL parser kept on the baseline compiler', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  it("marks PGlite's raw_parser, and no other function, baseline-only; the module stays valid", () => {
    const { imported, declared, target } = wasmLayout(stock);
    const hinted = withBaselineHint(stock);
    expect(wasm.validate(hinted)).toBe(true);
    const hints = hintsOf(hinted);
    expect(hints).toHaveLength(declared);
    expect(hints[target - imported]).toBe(0x14);
    expect(hints.filter((h) => h !== 0)).toHaveLength(1);
    // the stock module has no hints; everything else is byte for byte the same
    expect(hinted.length - stock.length).toBeLessThan(declared + 32);
  });

  it('finds the function by its export name, not by a fixed index', () => {
    const hints = hintsOf(withBaselineHint(tinyModule()));
    expect([...hints]).toEqual([0, 0x14, 0]); // function 3 = the 2nd defined after 2 imports
    expect(() => withBaselineHint(tinyModule(), 'imported')).toThrow(/not defined in the module/);
    expect(() => withBaselineHint(stock, 'no_such_function')).toThrow(WasmLayoutError);
  });

  it('refuses a layout it does not know instead of building a broken module', () => {
    expect(() => withBaselineHint(Buffer.from('not wasm at all'))).toThrow(/not a WebAssembly/);
    expect(() => withBaselineHint(stock.subarray(0, stock.length - 1000))).toThrow(/truncated/);
    expect(() => withBaselineHint(withBaselineHint(stock))).toThrow(/already has/);
  });

  it("falls back to PGlite's own module, with one warning for each edit, when the module cannot be edited", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'parser-baseline-'));
    dirs.push(dir);
    const corrupt = path.join(dir, 'pglite.wasm');
    await writeFile(corrupt, stock.subarray(0, 4096));
    const logs = captureLogs();
    expect(await pgliteModule(logs.logger, { hint: true }, pathToFileURL(corrupt))).toBeUndefined();
    const warnings = logs.lines.filter((l) => l.level === 40);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]!.msg).toMatch(/fresh-memory edit/);
    expect(warnings[1]!.msg).toMatch(/EMBEDDED_DB_PARSER_BASELINE/);
    expect(await pgliteModule(logs.logger, { hint: true })).toBeDefined();
    expect(logs.lines).toHaveLength(2);
  });

  it('is applied only under both node flags (V8 ignores the section otherwise)', () => {
    expect(hintFlagsGiven(['--max-semi-space-size=8', ...HINT_FLAGS])).toBe(true);
    expect(hintFlagsGiven(HINT_FLAGS.map((f) => f.replaceAll('-wasm-', '-wasm_')))).toBe(true);
    expect(hintFlagsGiven([HINT_FLAGS[0]!])).toBe(false);
    expect(hintFlagsGiven([])).toBe(false);
  });

  it('is compiled early, before the modules load, by the serving commands that will open the embedded database', () => {
    const flags = ['--max-semi-space-size=8', ...HINT_FLAGS];
    expect(opensHintedDatabase('serve', {}, flags)).toBe(true);
    expect(opensHintedDatabase('demo', { EMBEDDED_DB_PARSER_BASELINE: 'true' }, flags)).toBe(true);
    expect(opensHintedDatabase('worker', { EMBEDDED_DB_IN_MEMORY: 'true' }, flags)).toBe(true);
    // not where the opener would not compile it: Postgres, the setting off, the flags missing
    expect(opensHintedDatabase('serve', { DATABASE_URL: 'postgres://db/market' }, flags)).toBe(
      false,
    );
    for (const off of ['false', '0', 'no'])
      expect(opensHintedDatabase('serve', { EMBEDDED_DB_PARSER_BASELINE: off }, flags)).toBe(false);
    expect(opensHintedDatabase('serve', {}, ['--max-semi-space-size=8'])).toBe(false);
    // nor by a one-shot command, which may hand its work to a running service
    for (const c of ['migrate', 'reindex', 'moderate', 'unresolved-payments'])
      expect(opensHintedDatabase(c, {}, flags)).toBe(false);
  });

  /** The built module (a compiling thread loads it as plain JavaScript, as under npm start). */
  async function builtModule(): Promise<typeof import('../../src/db/parser-baseline.js')> {
    await ensureBuilt();
    const built = pathToFileURL(path.join(ROOT, 'dist/src/db/parser-baseline.js')).href;
    return (await import(built)) as typeof import('../../src/db/parser-baseline.js');
  }

  it('takes the module compiled early on its own thread: the opener reads and compiles nothing again', async () => {
    const built = await builtModule();
    const dir = await mkdtemp(path.join(tmpdir(), 'parser-baseline-'));
    dirs.push(dir);
    const copy = path.join(dir, 'pglite.wasm');
    await copyFile(pgliteWasmPath(), copy);
    await built.compileEarly(pathToFileURL(copy));
    // the file is gone before the opener asks: only the early compile can have read it
    const logs = captureLogs();
    await rm(copy);
    const module = await built.pgliteModule(logs.logger, { hint: true }, pathToFileURL(copy));
    expect(module).toBeDefined();
    expect(logs.lines).toHaveLength(0);
    expect(wasm.Module.customSections(module!, 'compilationHints')).toHaveLength(1);
    // taken once: the next open of the same source compiles it anew (and finds it gone)
    expect(
      await built.pgliteModule(logs.logger, { hint: true }, pathToFileURL(copy)),
    ).toBeUndefined();
    expect(logs.lines).toHaveLength(2);
  }, 60_000);

  it('reports an early compile that failed where the module is taken, with the one warning, and falls back', async () => {
    const built = await builtModule();
    const dir = await mkdtemp(path.join(tmpdir(), 'parser-baseline-'));
    dirs.push(dir);
    const corrupt = path.join(dir, 'pglite.wasm');
    await writeFile(corrupt, stock.subarray(0, 4096));
    built.compileEarly(pathToFileURL(corrupt));
    const logs = captureLogs();
    expect(
      await built.pgliteModule(logs.logger, { hint: true }, pathToFileURL(corrupt)),
    ).toBeUndefined();
    // one warning for each edit, each with the reason
    expect(logs.lines).toHaveLength(2);
    for (const line of logs.lines) {
      expect(line.level).toBe(40);
      expect(JSON.stringify(line)).toMatch(/truncated/);
    }
  }, 60_000);

  /**
   * The embedded database opened as `npm start` opens it, parsing 300 distinct statements: with
   * `EMBEDDED_DB_PARSER_BASELINE` (default) V8 never optimises raw_parser; with it off, V8's
   * optimising compiler takes raw_parser (the ~600 MB compile). `--wasm-tier-up-filter` lets only
   * raw_parser be optimised, so that no other compile is waited for; V8's own trace tells.
   */
  async function parseMany(setting: 'true' | 'false', waitForCompile: boolean) {
    const target = wasmLayout(stock).target;
    const script = `
      import { loadConfig } from './src/config.ts';
      import { openDatabase } from './src/db/index.ts';
      const config = loadConfig({ EMBEDDED_DB_IN_MEMORY: 'true', EMBEDDED_DB_PARSER_BASELINE: '${setting}' });
      const db = await openDatabase(config);
      let sum = 0;
      for (let i = 0; i < 300; i++) sum += (await db.sql.unsafe('select ' + i + ' + 1 as n'))[0].n;
      console.log('sum ' + sum);
      process.stdin.on('data', async () => { await db.close(); process.exit(0); });`;
    const child = spawn(
      process.execPath,
      [
        ...HINT_FLAGS,
        '--wasm-num-compilation-tasks=1',
        `--wasm-tier-up-filter=${target}`,
        '--trace-wasm-compilation-times',
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        script,
      ],
      { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] },
    );
    let out = '';
    const optimised = new RegExp(`#${target} using TurboFan`);
    await new Promise<void>((resolve, reject) => {
      const done = () => {
        if (/sum \d+/.test(out) && (!waitForCompile || optimised.test(out))) resolve();
      };
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        done();
      });
      child.on('exit', (code) => reject(new Error(`child exited (${code}) early:\n${out}`)));
    });
    // a compile queued with the parser's first statements would have ended long before this
    if (!waitForCompile) await new Promise((r) => setTimeout(r, 3_000));
    child.removeAllListeners('exit');
    const exited = new Promise((r) => child.on('exit', r));
    child.stdin.write('close\n');
    await exited;
    return { sum: Number(/sum (\d+)/.exec(out)![1]), optimised: optimised.test(out) };
  }

  it("keeps raw_parser off V8's optimising compiler under npm start's flags; SQL answers the same", async () => {
    const expected = (300 * 301) / 2;
    expect(await parseMany('true', false)).toEqual({ sum: expected, optimised: false });
    // the setting off: the compile this issue is about happens
    expect(await parseMany('false', true)).toEqual({ sum: expected, optimised: true });
  }, 240_000);
});
