import { open } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { PGliteOptions } from '@electric-sql/pglite';
import type { Logger } from 'pino';
import { isServingCommand } from '../command-names.js';
import { freshMmapSplices } from './fresh-mmap.js';
import {
  exportedFunctions,
  functionImports,
  Reader,
  SECTION,
  spliceInPlace,
  uleb,
  WasmLayoutError,
  type Splice,
} from './wasm-bytes.js';

export { WasmLayoutError };

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

const HINTS_SECTION = 'compilationHints';
/**
 * One byte per declared function: strategy (bits 0-1), baseline tier (2-3), top tier (4-5); a tier
 * of 0 is V8's default, 1 the baseline compiler. 0x14: baseline tier Liftoff, top tier Liftoff.
 */
const KEEP_ON_BASELINE = (1 << 2) | (1 << 4);

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
    else if (id === SECTION.export) target = exportedFunctions(body, [name]).get(name);
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
  const out = new Uint8Array(wasm.length + editRoom(wasm.length));
  out.set(wasm);
  return spliceInPlace(out, wasm.length, [hintSplice(wasm, name)]);
}

/** What the opener may change in PGlite's module: ./fresh-mmap.ts, and the hint above. */
export type PgliteEdit = 'fresh-mmap' | 'parser-baseline';

/** A module with the edits that applied, and why the others did not. */
export interface Edited {
  bytes: Uint8Array;
  edits: PgliteEdit[];
  failed: { edit: PgliteEdit; reason: string }[];
}

/** `wasm` with each edit that applies: ./fresh-mmap.ts always, the hint when `hint`. */
export function withEdits(wasm: Uint8Array, hint: boolean): Edited {
  const out = new Uint8Array(wasm.length + editRoom(wasm.length));
  out.set(wasm);
  return editInPlace(out, wasm.length, hint);
}

/**
 * Bytes to leave after a module of `size` bytes for the edits: the hint section's header and one
 * byte per defined function, and every defined function takes at least 3 bytes (its type index in
 * the function section, its body's size and `end` in the code section); the fresh-memory edit's
 * function and headers take less than 256.
 */
function editRoom(size: number): number {
  return Math.ceil(size / 3) + 64 + 256;
}

/** The hint section, inserted before the code section; `declared` counts a function the edits add. */
function hintSplice(wasm: Uint8Array, name: string, added = 0): Splice {
  const { imported, declared: stock, target, codeAt } = wasmLayout(wasm, name);
  const declared = stock + added;
  const sectionName = Buffer.from(HINTS_SECTION);
  const payload = [...uleb(sectionName.length), ...sectionName, ...uleb(declared)];
  const head = [SECTION.custom, ...uleb(payload.length + declared), ...payload];
  const bytes = new Uint8Array(head.length + declared);
  bytes.set(head);
  bytes[head.length + target - imported] = KEEP_ON_BASELINE;
  return { at: codeAt, remove: 0, bytes };
}

/**
 * Applies the edits that fit to the module held in the first `size` bytes of `buf` (which has
 * room after them, see editRoom), in place (./wasm-bytes.ts spliceInPlace); an edit whose checks
 * fail is left out and named in `failed`.
 */
function editInPlace(buf: Uint8Array, size: number, hint: boolean): Edited {
  const wasm = buf.subarray(0, size);
  const splices: Splice[] = [];
  const edits: PgliteEdit[] = [];
  const failed: Edited['failed'] = [];
  const attempt = (edit: PgliteEdit, make: () => void) => {
    try {
      make();
      edits.push(edit);
    } catch (e) {
      if (!(e instanceof WasmLayoutError)) throw e;
      failed.push({ edit, reason: e.message });
    }
  };
  let added = 0;
  attempt('fresh-mmap', () => {
    const fresh = freshMmapSplices(wasm);
    splices.push(...fresh.splices);
    added = 1;
  });
  if (hint) attempt('parser-baseline', () => splices.push(hintSplice(wasm, PARSER_EXPORT, added)));
  return { bytes: spliceInPlace(buf, size, splices), edits, failed };
}

/** Reads the module at `source` straight into a buffer with room for the edits, and edits it there. */
async function readEdited(source: URL, hint: boolean): Promise<Edited> {
  const file = await open(source, 'r');
  try {
    const { size } = await file.stat();
    const buf = new Uint8Array(size + editRoom(size));
    let read = 0;
    while (read < size) {
      const { bytesRead } = await file.read(buf, read, size - read, read);
      if (bytesRead === 0) throw new WasmLayoutError(`truncated at byte ${read}`);
      read += bytesRead;
    }
    return editInPlace(buf, size, hint);
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

/**
 * Where PGlite's WebAssembly is (its loader reads `./pglite.wasm` beside its entry; the CommonJS
 * entry require.resolve names sits beside the ES one). Not import.meta.resolve: vitest's module
 * runner (its global setup opens the database) lacks it.
 */
export function pgliteWasmPath(): URL {
  return new URL(
    './pglite.wasm',
    pathToFileURL(createRequire(import.meta.url).resolve('@electric-sql/pglite')),
  );
}

/** A compiled module with its edits (none compiled when no edit applied: PGlite loads its own). */
export interface CompiledEdits {
  module?: WasmModule;
  edits: PgliteEdit[];
  failed: Edited['failed'];
}

const WARNINGS: Record<PgliteEdit, string> = {
  'parser-baseline':
    'EMBEDDED_DB_PARSER_BASELINE: the SQL parser cannot be kept on the baseline compiler; the database runs without the hint (start peaks ~600 MB higher)',
  'fresh-mmap':
    "the embedded database's module is not the one the fresh-memory edit was checked against (src/db/fresh-mmap.ts): its start zeroes all of its shared memory (~140 ms and ~20 MB more)",
};

/**
 * PGlite's module as the opener hands it (`pgliteWasmModule`): with Postgres's start zeroing only
 * memory that may be dirty (./fresh-mmap.ts), and, when `hint`, the parser kept on the baseline
 * tier; one warning for each edit that does not fit. Undefined (PGlite loads its own) when none
 * does or the module cannot be read. A module compiled here is kept for the next open in this
 * process (tests open many), as PGlite keeps its own; one compiled early is taken once.
 */
export async function pgliteModule(
  logger: Logger | undefined,
  { hint }: { hint: boolean },
  source: URL = pgliteWasmPath(),
): Promise<WasmModule | undefined> {
  const begun = early?.source === source.href ? early.module : undefined;
  early = undefined;
  const key = `${hint}:${source.href}`;
  try {
    let result = begun ? await begun : undefined;
    if (!result) {
      let compiling = compiled.get(key);
      if (!compiling) {
        compiling = compileEdited(source, hint);
        compiled.set(key, compiling);
        compiling.catch(() => compiled.delete(key));
      }
      result = await compiling;
    }
    for (const f of result.failed)
      logger?.warn({ err: f.reason, source: source.pathname }, WARNINGS[f.edit]);
    logger?.debug({ edits: result.edits }, "the embedded database's module");
    return result.module;
  } catch (e) {
    const err = e instanceof WasmLayoutError ? e.message : String(e);
    for (const edit of hint
      ? (['fresh-mmap', 'parser-baseline'] as const)
      : (['fresh-mmap'] as const))
      logger?.warn({ err, source: source.pathname }, WARNINGS[edit]);
    return undefined;
  }
}

/** Modules compiled by pgliteModule, by hint and source. */
const compiled = new Map<string, Promise<CompiledEdits>>();

/** Reads, edits and compiles the module at `source` (on whichever thread calls it). */
export async function compileEdited(source: URL, hint: boolean): Promise<CompiledEdits> {
  const { bytes, edits, failed } = await readEdited(source, hint);
  return { ...(edits.length > 0 && { module: await wasmApi.compile(bytes) }), edits, failed };
}

/** The compile compileEarly began, for the next pgliteModule of the same source to take. */
let early: { source: string; module: Promise<CompiledEdits> } | undefined;

/**
 * What the compiling thread runs: this module's compileEdited, its result or its error posted
 * back (a compiled WebAssembly.Module crosses threads without a copy of its code).
 */
const EARLY_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
import(workerData.self)
  .then((m) => m.compileEdited(new URL(workerData.source), true))
  .then(
    (result) => parentPort.postMessage({ result }),
    (e) => parentPort.postMessage({ error: String(e && e.message || e), layout: e && e.name === 'WasmLayoutError' }),
  );`;

/**
 * Begins reading, hinting and compiling the module on a thread of its own, now. The process entry
 * calls it before it loads the rest of the service (~1,400 modules, most of a start's main-thread
 * time, during which the main thread runs nothing else, not even V8's own steps of an asynchronous
 * compile): the other core does it meanwhile, and the opener's pgliteModule takes the
 * result (or its error, warned about there as ever). The built entry only: from source the thread
 * could not load this .ts module without tsx's loader. Settles (never rejects) when the thread is done.
 */
export function compileEarly(source: URL = pgliteWasmPath()): Promise<void> {
  if (!import.meta.url.endsWith('.js')) return Promise.resolve();
  const worker = new Worker(EARLY_WORKER, {
    eval: true,
    workerData: { self: import.meta.url, source: source.href },
  });
  const module = new Promise<CompiledEdits>((resolve, reject) => {
    worker.once('message', (m: { result?: CompiledEdits; error?: string; layout?: boolean }) => {
      if (m.result) resolve(m.result);
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
