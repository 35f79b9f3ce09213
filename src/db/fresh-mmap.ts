import { createHash } from 'node:crypto';
import {
  exportedFunctions,
  functionImports,
  Reader,
  SECTION,
  sections,
  uleb,
  WasmLayoutError,
  type Splice,
} from './wasm-bytes.js';

/**
 * Postgres's start without zeroing fresh memory (issue 25, docs/benchmarks.md "Stop 45").
 *
 * Postgres's start in PGlite spent ~140 ms of its ~260 ms in Emscripten's anonymous `mmap`: the
 * block for its shared memory (24 MB: 16 MB of shared_buffers, lock tables, WAL buffers...) comes
 * from dlmalloc's `memalign`, then `memset(0)` writes all of it, a first touch of ~6,000 pages
 * (~25 µs each on this project's VMs, whose kernel also has no shared zero page: reading a fresh
 * page costs the same as writing it). Most of that block is fresh: memory the heap's break had
 * never reached, which WebAssembly gives zeroed and nothing has written since.
 *
 * This edit of PGlite's `pglite.wasm` gives `mmap` a `memalign` that zeroes only the part of the
 * block below the break as it was before the call (the "high-water mark": this module's `sbrk`
 * refuses to lower the break, so the break is the highest it ever was), and turns `mmap`'s own
 * `memset` into nothing. Every byte below that break may have been handed out and freed
 * (dlmalloc returns freed memory first), so it is zeroed as before; every byte at or above it was
 * never inside the heap: dlmalloc and `sbrk` write only below the break, the stack lies below the
 * heap, and Emscripten's loader places side modules' data below it too (it raises the break for
 * them). What `mmap` returns is zero-filled exactly as with the memset, whatever dlmalloc does.
 *
 * The reasoning holds for the code it was checked against: the build fails and the opener warns
 * (and runs without the edit) unless the functions it rests on are byte for byte those below.
 */

/**
 * The SHA-256 of each function body the edit rests on (locals and code, as in the code section),
 * in PGlite 0.5.14's `pglite.wasm`. `sbrk` is not exported: found by its index.
 */
export const EXPECTED_BODIES = {
  /** musl's `mmap` with Emscripten's anonymous mapping inlined: `memalign`, then `memset(0)`. */
  mmap: '19fd3a440650a4e13f622875d364d39e067cf1185cb541a707fc3415e0a4e519',
  /** `memalign` for `mmap`'s 64 KB alignment (dlmalloc's `internal_memalign`). */
  emscripten_builtin_memalign: '289449e7ad4f8fadb71fc3f5f9f66004af082646767b42d9068fd11aa619a654',
  /** The address of the break (initialised lazily to `__heap_base`). */
  emscripten_get_sbrk_ptr: '09e57b717772cc7a8da7bd9fcea14f8cadcdc7e82d10b8babb5a6de2aad103d5',
  /** `sbrk`: adds the increment as unsigned, so a negative one fails (ENOMEM): never lowered. */
  sbrk: '73a11cf338178880a1a91d1b44a7cf79ec3ede12dfab2829efa6dff77e3741ce',
} as const;

/** `sbrk`'s function index (it is not exported; its body is checked like the others). */
export const SBRK_INDEX = 13669;

/** The exports the edit finds by name. */
const NAMES = ['mmap', 'emscripten_builtin_memalign', 'emscripten_get_sbrk_ptr', 'memset'] as const;

/** (i32, i32) -> i32, `memalign`'s type and the new function's. */
const I32_I32_TO_I32 = [0x60, 2, 0x7f, 0x7f, 1, 0x7f];

/** What the edit found in a module, for the splices and the checks. */
export interface MmapLayout {
  imported: number;
  declared: number;
  functions: Record<(typeof NAMES)[number] | 'sbrk', number>;
  /** Each checked function's body: where its locals and code start and end. */
  bodies: Map<number, { start: number; end: number }>;
  /** `memalign`'s type index. */
  memalignType: number;
  /** The function section and the code section. */
  functionSection: { at: number; body: number; end: number };
  codeSection: { at: number; body: number; end: number };
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** The signature bytes of type `index` (a function type: 0x60, params, results). */
function typeBytes(wasm: Uint8Array, r: Reader, index: number): number[] {
  for (let i = 0, n = r.u32(); i < n; i++) {
    const start = r.at;
    if (r.byte() !== 0x60) throw new WasmLayoutError(`type ${i} is not a function type`);
    for (let p = r.u32(); p > 0; p--) r.valueType();
    for (let q = r.u32(); q > 0; q--) r.valueType();
    if (i === index) return [...wasm.subarray(start, r.at)];
  }
  throw new WasmLayoutError(`no type ${index}`);
}

/** Reads what the edit needs of `wasm`; throws WasmLayoutError when something is missing. */
export function mmapLayout(wasm: Uint8Array): MmapLayout {
  let imported = 0;
  let types: { body: number; end: number } | undefined;
  let functionSection: MmapLayout['functionSection'] | undefined;
  let codeSection: MmapLayout['codeSection'] | undefined;
  let exported = new Map<string, number>();
  for (const s of sections(wasm)) {
    const body = new Reader(wasm, s.body, s.end);
    if (s.id === SECTION.type) types = s;
    else if (s.id === SECTION.import) imported = functionImports(body);
    else if (s.id === SECTION.function) functionSection = s;
    else if (s.id === SECTION.export) exported = exportedFunctions(body, NAMES);
    else if (s.id === SECTION.code) codeSection = s;
  }
  if (!types || !functionSection || !codeSection)
    throw new WasmLayoutError('no type, function or code section');
  const functions = { sbrk: SBRK_INDEX } as MmapLayout['functions'];
  for (const name of NAMES) {
    const index = exported.get(name);
    if (index === undefined) throw new WasmLayoutError(`no exported function named ${name}`);
    functions[name] = index;
  }
  const fr = new Reader(wasm, functionSection.body, functionSection.end);
  const declared = fr.u32();
  const defined = (index: number) => index >= imported && index < imported + declared;
  for (const [name, index] of Object.entries(functions))
    if (!defined(index))
      throw new WasmLayoutError(`${name} (function ${index}) is not defined in the module`);
  // memalign's type index: the function section lists one type index per defined function
  let memalignType = -1;
  for (let i = 0; i < declared; i++) {
    const t = fr.u32();
    if (i === functions.emscripten_builtin_memalign - imported) {
      memalignType = t;
      break;
    }
  }
  const signature = typeBytes(wasm, new Reader(wasm, types.body, types.end), memalignType);
  if (signature.join() !== I32_I32_TO_I32.join())
    throw new WasmLayoutError('emscripten_builtin_memalign is not (i32, i32) -> i32');
  // the bodies of the checked functions, found by walking the code section's sizes
  const wantedBodies = new Set(
    [
      functions.mmap,
      functions.emscripten_builtin_memalign,
      functions.emscripten_get_sbrk_ptr,
      SBRK_INDEX,
    ].map((i) => i - imported),
  );
  const bodies = new Map<number, { start: number; end: number }>();
  const cr = new Reader(wasm, codeSection.body, codeSection.end);
  const count = cr.u32();
  if (count !== declared) throw new WasmLayoutError('the code and function sections disagree');
  for (let i = 0; i < count && bodies.size < wantedBodies.size; i++) {
    const size = cr.u32();
    if (wantedBodies.has(i)) bodies.set(i + imported, { start: cr.at, end: cr.at + size });
    cr.skip(size);
  }
  return { imported, declared, functions, bodies, memalignType, functionSection, codeSection };
}

/** The SHA-256 of each checked function's body, by the names of EXPECTED_BODIES. */
export function bodyDigests(
  wasm: Uint8Array,
  layout = mmapLayout(wasm),
): Record<keyof typeof EXPECTED_BODIES, string> {
  const digest = (index: number) => {
    const b = layout.bodies.get(index)!;
    return sha256(wasm.subarray(b.start, b.end));
  };
  const f = layout.functions;
  return {
    mmap: digest(f.mmap),
    emscripten_builtin_memalign: digest(f.emscripten_builtin_memalign),
    emscripten_get_sbrk_ptr: digest(f.emscripten_get_sbrk_ptr),
    sbrk: digest(f.sbrk),
  };
}

/** The one place in `body` where `pattern` is; throws unless there is exactly one. */
function onlyAt(wasm: Uint8Array, body: { start: number; end: number }, pattern: number[]): number {
  let found = -1;
  for (let i = body.start; i + pattern.length <= body.end; i++) {
    if (pattern.every((b, k) => wasm[i + k] === b)) {
      if (found >= 0) throw new WasmLayoutError(`call found twice in mmap`);
      found = i;
    }
  }
  if (found < 0) throw new WasmLayoutError('call not found in mmap');
  return found;
}

/**
 * The new function, `memalign_zeroing_below_the_break(align, size)`:
 *
 *     brk = *emscripten_get_sbrk_ptr();  p = memalign(align, size);
 *     if (p && brk > p) memset(p, 0, min(brk - p, size));
 *     return p;
 */
function zeroingMemalign(f: MmapLayout['functions']): number[] {
  const [BRK, P, ALIGN, SIZE] = [2, 3, 0, 1];
  const get = (l: number) => [0x20, l];
  const code = [
    ...[1, 2, 0x7f], // two i32 locals: brk, p
    ...[0x10, ...uleb(f.emscripten_get_sbrk_ptr)],
    ...[0x28, 2, 0], // i32.load
    ...[0x21, BRK],
    ...get(ALIGN),
    ...get(SIZE),
    ...[0x10, ...uleb(f.emscripten_builtin_memalign)],
    ...[0x22, P], // local.tee p
    ...[0x04, 0x40], // if p
    ...[...get(BRK), ...get(P), 0x4b], // brk > p (unsigned)
    ...[0x04, 0x40], // if
    ...get(P),
    ...[0x41, 0], // 0
    ...[...get(BRK), ...get(P), 0x6b], // brk - p
    ...get(SIZE),
    ...[...get(BRK), ...get(P), 0x6b, ...get(SIZE), 0x49], // brk - p < size
    0x1b, // select: min(brk - p, size)
    ...[0x10, ...uleb(f.memset)],
    0x1a, // drop memset's result
    ...[0x0b, 0x0b], // end, end
    ...get(P),
    0x0b,
  ];
  return [...uleb(code.length), ...code];
}

/**
 * The splices that make `mmap` zero only memory below the break (see above), checked against
 * EXPECTED_BODIES; `functions` is the module's function count after the edit, for a
 * compilation-hints section added with it. Throws WasmLayoutError when the module is not the one
 * the edit was checked against.
 */
export function freshMmapSplices(
  wasm: Uint8Array,
  expected: Record<keyof typeof EXPECTED_BODIES, string> = EXPECTED_BODIES,
): { splices: Splice[]; declared: number } {
  const layout = mmapLayout(wasm);
  const found = bodyDigests(wasm, layout);
  for (const [name, digest] of Object.entries(expected) as [keyof typeof found, string][])
    if (found[name] !== digest)
      throw new WasmLayoutError(
        `${name} is not the code the fresh-memory edit was checked against`,
      );
  const { imported, declared, functions: f } = layout;
  const added = imported + declared;
  const mmap = layout.bodies.get(f.mmap)!;
  const call = (index: number) => [0x10, ...uleb(index)];
  // mmap's memalign call made a call of the new function: the same length, or the body would move
  const memalignAt = onlyAt(wasm, mmap, call(f.emscripten_builtin_memalign));
  if (call(added).length !== call(f.emscripten_builtin_memalign).length)
    throw new WasmLayoutError('the new function index does not fit the call it replaces');
  // memset(p, 0, len) then drop: both values dropped and nothing done, p left for the drop
  const memsetAt = onlyAt(wasm, mmap, [...call(f.memset), 0x1a]);
  const memsetCall = call(f.memset).length;
  const nothing = [0x1a, 0x1a, ...Array<number>(memsetCall - 2).fill(0x01)];

  const fs = layout.functionSection;
  const fsCount = new Reader(wasm, fs.body, fs.end);
  fsCount.u32();
  const type = uleb(layout.memalignType);
  const fsSize = fs.end - fsCount.at + uleb(declared + 1).length + type.length;
  const cs = layout.codeSection;
  const csCount = new Reader(wasm, cs.body, cs.end);
  csCount.u32();
  const body = zeroingMemalign(f);
  const csSize = cs.end - csCount.at + uleb(declared + 1).length + body.length;
  const bytes = (b: number[]) => Uint8Array.from(b);
  return {
    declared: declared + 1,
    splices: [
      {
        at: fs.at,
        remove: fsCount.at - fs.at,
        bytes: bytes([SECTION.function, ...uleb(fsSize), ...uleb(declared + 1)]),
      },
      { at: fs.end, remove: 0, bytes: bytes(type) },
      { at: memalignAt, remove: call(added).length, bytes: bytes(call(added)) },
      { at: memsetAt, remove: memsetCall, bytes: bytes(nothing) },
      {
        at: cs.at,
        remove: csCount.at - cs.at,
        bytes: bytes([SECTION.code, ...uleb(csSize), ...uleb(declared + 1)]),
      },
      { at: cs.end, remove: 0, bytes: bytes(body) },
    ],
  };
}
