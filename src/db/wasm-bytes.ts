/**
 * The few pieces of the WebAssembly binary format that our edits of PGlite's `pglite.wasm` need
 * (./parser-baseline.ts adds a compilation-hints section, ./fresh-mmap.ts a function and two call
 * sites): a reader of section headers, names and LEB128 numbers, and an in-place splice. Only the
 * sections an edit touches are read (a few KB of the 9 MB); a general wasm parsing library would
 * decode all 9 MB of code into objects, and write a second 9 MB buffer, to change a few bytes.
 * Node built-ins only: it loads before the service's modules (src/main.ts).
 */

export const SECTION = {
  custom: 0,
  type: 1,
  import: 2,
  function: 3,
  global: 6,
  export: 7,
  code: 10,
} as const;

/** The module's layout is not the one expected (another PGlite build, a damaged file). */
export class WasmLayoutError extends Error {
  override name = 'WasmLayoutError';
}

export class Reader {
  constructor(
    private readonly bytes: Uint8Array,
    public at = 0,
    public readonly end = bytes.length,
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

export function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n) b |= 0x80;
    out.push(b);
  } while (n);
  return out;
}

/** Where one section is: its id byte at `at`, its contents from `body` to `end`. */
export interface Section {
  id: number;
  at: number;
  body: number;
  end: number;
}

/** The sections of a (version 1) module, in order; throws WasmLayoutError on anything else. */
export function sections(wasm: Uint8Array): Section[] {
  const header = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
  if (wasm.length < 8 || header.some((b, i) => wasm[i] !== b))
    throw new WasmLayoutError('not a WebAssembly module (version 1)');
  const r = new Reader(wasm, 8);
  const out: Section[] = [];
  while (r.at < wasm.length) {
    const at = r.at;
    const id = r.byte();
    const size = r.u32();
    const body = r.at;
    r.skip(size);
    out.push({ id, at, body, end: r.at });
  }
  return out;
}

/** Counts the function imports (they come first in the function index space). */
export function functionImports(r: Reader): number {
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

/** The function indices of the export section's functions named in `names` (the others left out). */
export function exportedFunctions(r: Reader, names: readonly string[]): Map<string, number> {
  const wanted = names.map((n) => Buffer.from(n));
  const found = new Map<string, number>();
  for (let i = r.u32(); i > 0; i--) {
    const start = r.at;
    const hit = wanted.findIndex((w) => {
      r.at = start;
      return r.nameIs(w);
    });
    if (hit < 0) {
      r.at = start;
      r.name();
    }
    const kind = r.byte();
    const index = r.u32();
    if (hit >= 0 && kind === 0) found.set(names[hit]!, index);
  }
  return found;
}

/** Bytes replacing `remove` bytes at `at` of the original module (an insertion when `remove` is 0). */
export interface Splice {
  at: number;
  remove: number;
  bytes: Uint8Array;
}

/**
 * Applies `splices` (none of them shrinking, none overlapping) to the module held in the first
 * `size` bytes of `buf`, in place, from the end backwards so that each byte moves at most once;
 * returns the edited module, a view of `buf`, which needs room for the growth after `size`. In
 * place, so that the 9 MB module is in memory once: a second buffer to copy it into cost a first
 * touch of every one of its pages at each start (page faults, ~50 ms).
 */
export function spliceInPlace(buf: Uint8Array, size: number, splices: Splice[]): Uint8Array {
  // an insertion and a replacement at one offset: the insertion first
  const ordered = [...splices].sort((a, b) => a.at - b.at || a.remove - b.remove);
  let growth = 0;
  let last = 0;
  for (const s of ordered) {
    if (s.bytes.length < s.remove) throw new Error('a splice may not shrink the module');
    if (s.at < last || s.at + s.remove > size) throw new Error('overlapping or outlying splices');
    last = s.at + s.remove;
    growth += s.bytes.length - s.remove;
  }
  if (size + growth > buf.length) throw new WasmLayoutError('no room for the edits');
  const total = growth;
  let end = size;
  for (const s of ordered.reverse()) {
    const tail = s.at + s.remove;
    buf.copyWithin(tail + growth, tail, end);
    growth -= s.bytes.length - s.remove;
    buf.set(s.bytes, s.at + growth);
    end = s.at;
  }
  return buf.subarray(0, size + total);
}
