import { readFile } from 'node:fs/promises';
import type { PGliteOptions } from '@electric-sql/pglite';
import type { Logger } from 'pino';

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
export class WasmLayoutError extends Error {}

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
  let found: number | undefined;
  for (let i = r.u32(); i > 0; i--) {
    const n = r.name();
    const kind = r.byte();
    const index = r.u32();
    if (n === name && kind === 0) found = index;
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
  const { imported, declared, target, codeAt } = wasmLayout(wasm, name);
  const hints = new Uint8Array(declared);
  hints[target - imported] = KEEP_ON_BASELINE;
  const sectionName = Buffer.from(HINTS_SECTION);
  const payload = [...uleb(sectionName.length), ...sectionName, ...uleb(declared)];
  const head = Uint8Array.from([SECTION.custom, ...uleb(payload.length + declared), ...payload]);
  const out = new Uint8Array(wasm.length + head.length + hints.length);
  out.set(wasm.subarray(0, codeAt), 0);
  out.set(head, codeAt);
  out.set(hints, codeAt + head.length);
  out.set(wasm.subarray(codeAt), codeAt + head.length + hints.length);
  return out;
}

/**
 * Whether this process runs with the flags under which V8 honours the hint (node's command line:
 * NODE_OPTIONS does not take these V8 flags).
 */
export function hintFlagsGiven(execArgv: readonly string[] = process.execArgv): boolean {
  const given = new Set(execArgv.map((f) => f.replaceAll('_', '-')));
  return HINT_FLAGS.every((f) => given.has(f));
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
  try {
    const hinted = withBaselineHint(await readFile(source));
    return await wasmApi.compile(hinted);
  } catch (e) {
    logger?.warn(
      { err: e instanceof WasmLayoutError ? e.message : String(e), source: source.pathname },
      'EMBEDDED_DB_PARSER_BASELINE: the SQL parser cannot be kept on the baseline compiler; the database runs on its stock module (start peaks ~600 MB higher)',
    );
    return undefined;
  }
}
