import { open } from 'node:fs/promises';
import { Worker } from 'node:worker_threads';
import type { PGliteOptions } from '@electric-sql/pglite';
import type { Logger } from 'pino';
import { isServingCommand } from '../command-names.js';

/**
 * PGlite's SQL parser on V8's baseline compiler (issue 25).
 *
 * V8 runs WebAssembly on its baseline compiler (Liftoff) and optimises (TurboFan) the functions
 * that get hot. One of PGlite's, Postgres's `raw_parser` (the Bison grammar, a 105 KB function),
 * takes ~600 MB of compiler working memory for half a second to a second to optimise: the
 * embedded service's whole start peak. V8 has no setting that spares one function from dynamic
 * tier-up, but WebAssembly's compilation-hints section (V8: `--experimental-wasm-compilation-hints`)
 * gives each function a top tier, which V8 honours when it tiers up every function it compiles
 * instead of the hot ones (`--no-wasm-dynamic-tiering`). With both flags (`npm start` gives them)
 * the module built here keeps `raw_parser` on Liftoff and lets every other function be optimised.
 *
 * The module is PGlite's own `pglite.wasm` plus one custom section, placed where V8 reads it
 * (after the function section, before the code section). The reader below walks only the section
 * headers and the import, function and export sections (a few KB of the 9 MB); a general wasm
 * parsing library would decode all 9 MB of code into objects to insert 14 KB.
 */

/** A compiled WebAssembly module, as PGlite's options name it (the ES2023 lib has no WebAssembly). */
export type WasmModule = NonNullable<PGliteOptions['pgliteWasmModule']>;

/** The global WebAssembly object, typed for the one call made here. */
const wasmApi = (
  globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<WasmModule> } }
).WebAssembly;

/** The function kept on the baseline tier, found by its export name. */
export const PARSER_EXPORT = 'raw_parser';

/** The node flags under which V8 honours the hint; `npm start`, the image and the benches give them. */
export const HINT_FLAGS = ['--experimental-wasm-compilation-hints', '--no-wasm-dynamic-tiering'];

const SECTION = { custom: 0, import: 2, function: 3, export: 7, code: 10 } as const;
const HINTS_SECTION = 'compilationHints';
/**
 * One byte per declared function: strategy (bits 0-1), baseline tier (2-3), top tier (4-5); a tier
 * of 0 is V8's default, 1 the baseline compiler. 0x14: baseline tier Liftoff, top tier Liftoff.
 */
const KEEP_ON_BASELINE = (1 << 2) | (1 << 4);

/** The module's layout is not the one expected (another PGlite build, a damaged file). */
export class WasmLayoutError extends Error {
  override name = 'WasmLayoutError';
}

class Reader {
  constructor(
    private readonly bytes: Uint8Array,
    public at = 0,
    private readonly end = bytes.length,
  ) {}
  byte(): number {
    if (this.at >= this.end) throw new WasmLayoutError(`truncated at byte ${this.at}`);
    return this.bytes[this.at++]!;
  }
  /** Unsigned LEB128 up to 32 bits (counts, sizes, indices); a signed one is read the same way to skip it. */
  u32(): number {
    let value = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      const b = this.byte();
      value += (b & 0x7f) * 2 ** shift;
      if (!(b & 0x80)) return value;
    }
    throw new WasmLayoutError(`malformed LEB128 at byte ${this.at}`);
  }
  skip(n: number): void {
    if (this.at + n > this.end) throw new WasmLayoutError(`truncated at byte ${this.at}`);
    this.at += n;
  }
  name(): string {
    const n = this.u32();
    const start = this.at;
    this.skip(n);
    return Buffer.from(this.bytes.buffer, this.bytes.byteOffset + start, n).toString('utf8');
  }
  /** Skips a name; whether it is `expected` (compared as bytes: no string made for each of thousands). */
  nameIs(expected: Uint8Array): boolean {
    const n = this.u32();
    const start = this.at;
    this.skip(n);
    if (n !== expected.length) return false;
    for (let i = 0; i < n; i++) if (this.bytes[start + i] !== expected[i]) return false;
    return true;
  }
  /** A value or reference type: one byte, or (ref null? heaptype) with a signed LEB heap type. */
  valueType(): void {
    const t = this.byte();
    if (t === 0x63 || t === 0x64) this.u32();
  }
  limits(): void {
    const flags = this.byte();
    this.u32();
    if (flags & 1) this.u32();
  }
}

function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n) b |= 0x80;
    out.push(b);
  } while (n);
  return out;
}

/** Counts the function imports (they come first in the function index space). */
function functionImports(r: Reader): number {
  let functions = 0;
  for (let i = r.u32(); i > 0; i--) {
    r.name();
    r.name();
    const kind = r.byte();
    if (kind === 0) {
      r.u32();
      functions++;
    } else if (kind === 1) {
      r.valueType();
      r.limits();
    } else if (kind === 2) {
      r.limits();
    } else if (kind === 3) {
      r.valueType();
      r.byte();
    } else if (kind === 4) {
      r.byte();
      r.u32();
    } else {
      throw new WasmLayoutError(`unknown import kind ${kind}`);
    }
  }
  return functions;
}

function exportedFunction(r: Reader, name: string): number | undefined {
  const wanted = Buffer.from(name);
  let found: number | undefined;
  for (let i = r.u32(); i > 0; i--) {
    const matches = r.nameIs(wanted);
    const kind = r.byte();
    const index = r.u32();
    if (matches && kind === 0) found = index;
  }
  return found;
}

/** Where a module's parts are: what the hint needs to know. */
export interface WasmLayout {
  /** Function imports (the function index space starts with them). */
  imported: number;
  /** Functions the module defines (one hint each). */
  declared: number;
  /** Function index of the export looked for. */
  target: number;
  /** Byte offset of the code section (the hint section goes just before it). */
  codeAt: number;
}

/** Reads the layout of `wasm` and the index of its function exported as `name`; throws WasmLayoutError. */
export function wasmLayout(wasm: Uint8Array, name = PARSER_EXPORT): WasmLayout {
  const header = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
  if (wasm.length < 8 || header.some((b, i) => wasm[i] !== b))
    throw new WasmLayoutError('not a WebAssembly module (version 1)');
  const r = new Reader(wasm, 8);
  let imported = 0;
  let declared: number | undefined;
  let target: number | undefined;
  let codeAt: number | undefined;
  while (r.at < wasm.length) {
    const sectionAt = r.at;
    const id = r.byte();
    const size = r.u32();
    const body = new Reader(wasm, r.at, r.at + size);
    r.skip(size);
    if (id === SECTION.custom && body.name() === HINTS_SECTION)
      throw new WasmLayoutError('the module already has a compilation-hints section');
    else if (id === SECTION.import) imported = functionImports(body);
    else if (id === SECTION.function) declared = body.u32();
    else if (id === SECTION.export) target = exportedFunction(body, name);
    else if (id === SECTION.code) codeAt = sectionAt;
  }
  if (declared === undefined || codeAt === undefined)
    throw new WasmLayoutError('no function or code section');
  if (target === undefined) throw new WasmLayoutError(`no exported function named ${name}`);
  if (target < imported || target >= imported + declared)
    throw new WasmLayoutError(`${name} (function ${target}) is not defined in the module`);
  return { imported, declared, target, codeAt };
}

/**
 * `wasm` with a compilation-hints section that keeps the function exported as `name` on the
 * baseline tier and leaves every other function to V8's default. Throws WasmLayoutError when the
 * module is not laid out as expected (then use it unchanged).
 */
export function withBaselineHint(wasm: Uint8Array, name = PARSER_EXPORT): Uint8Array {
  const out = new Uint8Array(wasm.length + hintRoom(wasm.length));
  out.set(wasm);
  return hintInPlace(out, wasm.length, name);
}

/**
 * Bytes to leave after a module of `size` bytes for its hint section: its header and one byte per
 * defined function, and every defined function takes at least 3 bytes (its type index in the
 * function section, its body's size and `end` in the code section).
 */
function hintRoom(size: number): number {
  return Math.ceil(size / 3) + 64;
}

/**
 * Inserts the hint section into the module held in the first `size` bytes of `buf` (which has
 * room after them, see hintRoom), moving the code section up in place; returns the hinted module
 * (a view of `buf`). In place, so that the 9 MB module is in memory once: a second buffer to copy
 * it into cost a first touch of every one of its pages at each start (page faults, ~50 ms).
 */
function hintInPlace(buf: Uint8Array, size: number, name: string): Uint8Array {
  const wasm = buf.subarray(0, size);
  const { imported, declared, target, codeAt } = wasmLayout(wasm, name);
  const sectionName = Buffer.from(HINTS_SECTION);
  const payload = [...uleb(sectionName.length), ...sectionName, ...uleb(declared)];
  const head = Uint8Array.from([SECTION.custom, ...uleb(payload.length + declared), ...payload]);
  const added = head.length + declared;
  if (size + added > buf.length) throw new WasmLayoutError('no room for the hint section');
  buf.copyWithin(codeAt + added, codeAt, size);
  buf.set(head, codeAt);
  buf.fill(0, codeAt + head.length, codeAt + added);
  buf[codeAt + head.length + target - imported] = KEEP_ON_BASELINE;
  return buf.subarray(0, size + added);
}

/** Reads the module at `source` straight into a buffer with room for the hint, and hints it there. */
async function readHinted(source: URL): Promise<Uint8Array> {
  const file = await open(source, 'r');
  try {
    const { size } = await file.stat();
    const buf = new Uint8Array(size + hintRoom(size));
    let read = 0;
    while (read < size) {
      const { bytesRead } = await file.read(buf, read, size - read, read);
      if (bytesRead === 0) throw new WasmLayoutError(`truncated at byte ${read}`);
      read += bytesRead;
    }
    return hintInPlace(buf, size, PARSER_EXPORT);
  } finally {
    await file.close();
  }
}

/**
 * Whether this process runs with the flags under which V8 honours the hint (node's command line:
 * NODE_OPTIONS does not take these V8 flags).
 */
export function hintFlagsGiven(execArgv: readonly string[] = process.execArgv): boolean {
  const given = new Set(execArgv.map((f) => f.replaceAll('_', '-')));
  return HINT_FLAGS.every((f) => given.has(f));
}

/**
 * Whether a process started with `command` will compile the hinted module as it opens the embedded
 * database: the serving commands (the one-shot ones may hand their work to a running service
 * instead), then openDatabase's own condition (src/db/index.ts) read from the environment as
 * src/config.ts reads it. The process entry asks before loading the configuration's code.
 */
export function opensHintedDatabase(
  command: string,
  env: Record<string, string | undefined>,
  execArgv: readonly string[] = process.execArgv,
): boolean {
  if (!isServingCommand(command)) return false;
  if (env.DATABASE_URL) return false;
  if (['false', '0', 'no'].includes(env.EMBEDDED_DB_PARSER_BASELINE ?? '')) return false;
  return hintFlagsGiven(execArgv);
}

/** Where PGlite's WebAssembly is (its loader reads `./pglite.wasm` beside its entry). */
export function pgliteWasmPath(): URL {
  return new URL('./pglite.wasm', import.meta.resolve('@electric-sql/pglite'));
}

/**
 * PGlite's module compiled with the parser kept on the baseline tier, for PGlite's
 * `pgliteWasmModule` option; undefined (PGlite loads its own) when the hint cannot be applied,
 * with one warning.
 */
export async function parserBaselineModule(
  logger?: Logger,
  source: URL = pgliteWasmPath(),
): Promise<WasmModule | undefined> {
  const begun = early?.source === source.href ? early.module : undefined;
  early = undefined;
  try {
    return await (begun ?? compileHinted(source));
  } catch (e) {
    logger?.warn(
      { err: e instanceof WasmLayoutError ? e.message : String(e), source: source.pathname },
      'EMBEDDED_DB_PARSER_BASELINE: the SQL parser cannot be kept on the baseline compiler; the database runs on its stock module (start peaks ~600 MB higher)',
    );
    return undefined;
  }
}

/** Reads, hints and compiles the module at `source` (on whichever thread calls it). */
export const compileHinted = async (source: URL): Promise<WasmModule> =>
  wasmApi.compile(await readHinted(source));

/** The compile compileEarly began, for the next parserBaselineModule of the same source to take. */
let early: { source: string; module: Promise<WasmModule> } | undefined;

/**
 * What the compiling thread runs: this module's compileHinted, its module or its error posted back
 * (a compiled WebAssembly.Module crosses threads without a copy of its code).
 */
const EARLY_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
import(workerData.self)
  .then((m) => m.compileHinted(new URL(workerData.source)))
  .then(
    (module) => parentPort.postMessage({ module }),
    (e) => parentPort.postMessage({ error: String(e && e.message || e), layout: e && e.name === 'WasmLayoutError' }),
  );`;

/**
 * Begins reading, hinting and compiling the module on a thread of its own, now. The process entry
 * calls it before it loads the rest of the service (~1,400 modules, most of a start's main-thread
 * time, during which the main thread runs nothing else, not even V8's own steps of an asynchronous
 * compile): the other core does it meanwhile, and the opener's parserBaselineModule takes the
 * result (or its error, warned about there as ever). The built entry only: from source the thread
 * could not load this .ts module without tsx's loader. Settles (never rejects) when the thread is done.
 */
export function compileEarly(source: URL = pgliteWasmPath()): Promise<void> {
  if (!import.meta.url.endsWith('.js')) return Promise.resolve();
  const worker = new Worker(EARLY_WORKER, {
    eval: true,
    workerData: { self: import.meta.url, source: source.href },
  });
  const module = new Promise<WasmModule>((resolve, reject) => {
    worker.once('message', (m: { module?: WasmModule; error?: string; layout?: boolean }) => {
      if (m.module) resolve(m.module);
      else reject(m.layout ? new WasmLayoutError(m.error) : new Error(m.error));
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the compiling thread exited (${code})`)));
  });
  early = { source: source.href, module };
  // done with the thread either way; an error is reported where the module is taken
  return module.then(
    () => void worker.terminate(),
    () => void worker.terminate(),
  );
}
