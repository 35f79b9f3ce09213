import { readFileSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { EXPECTED_BODIES, freshMmapSplices, mmapLayout } from '../../src/db/fresh-mmap.js';
import { openDatabase } from '../../src/db/index.js';
import { pgliteWasmPath, withEdits, type WasmModule } from '../../src/db/parser-baseline.js';
import { spliceInPlace, uleb } from '../../src/db/wasm-bytes.js';
import { captureLogs } from '../helpers/logs.js';
import { ON_POSTGRES } from '../helpers/postgres.js';

/**
 * Issue 25 (start): Postgres's start in PGlite zeroed all of its 24 MB of shared memory in
 * Emscripten's anonymous `mmap`, ~6,000 first touches of a page. The opener's edit of
 * `pglite.wasm` (src/db/fresh-mmap.ts) zeroes only the part of the block below the heap's break
 * (memory the heap may have handed out and taken back), and leaves memory above it, which nothing
 * ever wrote, as WebAssembly gave it.
 */
const stock = readFileSync(pgliteWasmPath());
const wasmApi = (
  globalThis as unknown as {
    WebAssembly: { compile(b: Uint8Array): Promise<WasmModule>; validate(b: Uint8Array): boolean };
  }
).WebAssembly;

interface Heap {
  HEAPU8: Uint8Array;
  _malloc(n: number): number;
  _free(p: number): void;
  _mmap(addr: number, len: number, prot: number, flags: number, fd: number, off: bigint): number;
  _munmap(addr: number, len: number): number;
}

/** Where the module keeps its break: `emscripten_get_sbrk_ptr`'s `i32.const` (its body is pinned). */
function sbrkPointer(wasm: Uint8Array): number {
  const layout = mmapLayout(wasm);
  const body = layout.bodies.get(layout.functions.emscripten_get_sbrk_ptr)!;
  expect([wasm[body.start], wasm[body.start + 1]]).toEqual([0x00, 0x41]); // no locals; i32.const
  let v = 0;
  let shift = 0;
  for (let at = body.start + 2; ; at++, shift += 7) {
    v |= (wasm[at]! & 0x7f) << shift;
    if (!(wasm[at]! & 0x80)) return v;
  }
}

const MB = 1 << 20;
const PROT_RW = 3;
const ANONYMOUS_PRIVATE = 0x20 | 0x02;

/** The edited module, compiled once for the file (a compile takes seconds on a loaded machine). */
let edited: Promise<WasmModule> | undefined;
const editedModule = () => (edited ??= wasmApi.compile(withEdits(stock, false).bytes));

const opened: { close(): Promise<void> }[] = [];
afterAll(async () => {
  for (const db of opened) await db.close().catch(() => {});
});

/** A real PGlite (in memory) on `module`, and its Emscripten heap. */
async function pgliteOn(module: WasmModule): Promise<Heap> {
  const db = await PGlite.create({ pgliteWasmModule: module });
  opened.push(db);
  return (db as unknown as { Module: Heap }).Module;
}

/** PGlite's module as 0.5.14's stop-44 measurement had it: mmap's memset simply removed (unsafe). */
function withoutMemset(): Uint8Array {
  const layout = mmapLayout(stock);
  const mmap = layout.bodies.get(layout.functions.mmap)!;
  const call = [0x10, ...uleb(layout.functions.memset), 0x1a];
  const copy = Uint8Array.from(stock);
  for (let i = mmap.start; i < mmap.end; i++)
    if (call.every((b, k) => copy[i + k] === b)) copy.set([0x1a, 0x1a, 0x01], i);
  return copy;
}

// The embedded database only (PGlite opened here, never the test tier's database): on the
// Postgres tier this file would run the very same code again, so it runs in `npm test` alone
// (docs/testing.md, "CI's time").
describe.skipIf(ON_POSTGRES)("Postgres's start without zeroing fresh memory", () => {
  it('applies to the installed PGlite (the build fails otherwise) and keeps the module valid, with or without the hint', () => {
    for (const hint of [false, true]) {
      const edited = withEdits(stock, hint);
      expect(edited.failed).toEqual([]);
      expect(edited.edits).toEqual(hint ? ['fresh-mmap', 'parser-baseline'] : ['fresh-mmap']);
      expect(wasmApi.validate(edited.bytes)).toBe(true);
    }
  });

  it('refuses a module whose code it was not checked against', () => {
    const other = Uint8Array.from(stock);
    const layout = mmapLayout(other);
    const sbrk = layout.bodies.get(layout.functions.sbrk)!;
    other[sbrk.end - 2] = other[sbrk.end - 2]! ^ 0x01; // one byte of sbrk's code
    expect(() => freshMmapSplices(other)).toThrow(/sbrk is not the code/);
    expect(withEdits(other, true).edits).toEqual(['parser-baseline']);
    expect(Object.keys(EXPECTED_BODIES)).toEqual([
      'mmap',
      'emscripten_builtin_memalign',
      'emscripten_get_sbrk_ptr',
      'sbrk',
    ]);
  });

  it('splices in place as a plain concatenation would', () => {
    const original = Uint8Array.from({ length: 40 }, (_, i) => i);
    const splices = [
      { at: 30, remove: 2, bytes: Uint8Array.from([200, 201, 202]) },
      { at: 5, remove: 0, bytes: Uint8Array.from([100]) },
      { at: 5, remove: 1, bytes: Uint8Array.from([101, 102]) },
      { at: 40, remove: 0, bytes: Uint8Array.from([250]) },
    ];
    const buf = new Uint8Array(60);
    buf.set(original);
    const expected = [
      ...original.subarray(0, 5),
      100,
      101,
      102,
      ...original.subarray(6, 30),
      200,
      201,
      202,
      ...original.subarray(32, 40),
      250,
    ];
    expect([...spliceInPlace(buf, 40, splices)]).toEqual(expected);
  });

  it('gives zeroed memory when dlmalloc hands out a freed, dirty block (without the memset it did not)', async () => {
    const dirtyReuse = async (module: WasmModule) => {
      const heap = await pgliteOn(module);
      const dirty = heap._malloc(8 * MB);
      heap.HEAPU8.fill(0xab, dirty, dirty + 8 * MB);
      heap._free(dirty);
      const block = heap._mmap(0, 4 * MB, PROT_RW, ANONYMOUS_PRIVATE, -1, 0n);
      expect(block).toBeGreaterThan(0);
      // the block is (in part) the freed one: what the test is about
      expect(block < dirty + 8 * MB && block + 4 * MB > dirty).toBe(true);
      const nonZero = heap.HEAPU8.subarray(block, block + 4 * MB).findIndex((b) => b !== 0);
      expect(heap._munmap(block, 4 * MB)).toBe(0);
      return nonZero;
    };
    expect(await dirtyReuse(await editedModule())).toBe(-1);
    // the lever as stop 44 measured it, without the check: dirty memory came out of mmap
    expect(await dirtyReuse(await wasmApi.compile(withoutMemset()))).toBeGreaterThanOrEqual(0);
  }, 240_000);

  it('leaves memory above the break, fresh from WebAssembly, unwritten: only what lies below is zeroed', async () => {
    const brkAt = sbrkPointer(stock);
    const fresh = async (module: WasmModule) => {
      const heap = await pgliteOn(module);
      const breakNow = () => new DataView(heap.HEAPU8.buffer).getUint32(brkAt, true);
      const brk = breakNow();
      // below the break: freed and dirty; above it: marked (nothing real ever writes there)
      const below = heap._malloc(2 * MB);
      heap.HEAPU8.fill(0xab, below, below + 2 * MB);
      heap._free(below);
      const top = breakNow();
      expect(top).toBeGreaterThanOrEqual(brk);
      const span = Math.min(16 * MB, heap.HEAPU8.length - top);
      heap.HEAPU8.fill(0xcd, top, top + span);
      const len = span / 2;
      const block = heap._mmap(0, len, PROT_RW, ANONYMOUS_PRIVATE, -1, 0n);
      expect(block).toBeGreaterThan(0);
      const bytes = heap.HEAPU8.subarray(block, block + len);
      const zeroUpTo = Math.max(0, Math.min(top - block, len));
      return {
        belowZeroed: bytes.subarray(0, zeroUpTo).every((b) => b === 0),
        aboveUntouched: zeroUpTo < len && bytes.subarray(zeroUpTo).every((b) => b === 0xcd),
      };
    };
    expect(await fresh(await editedModule())).toEqual({ belowZeroed: true, aboveUntouched: true });
    // PGlite's own module writes every byte
    expect(await fresh(await wasmApi.compile(stock))).toEqual({
      belowZeroed: true,
      aboveUntouched: false,
    });
  }, 240_000);

  it('is what the opener hands PGlite, in process and on its own thread', async () => {
    for (const thread of ['false', 'true']) {
      const logs = captureLogs();
      logs.logger.level = 'debug';
      const db = await openDatabase(
        loadConfig({ EMBEDDED_DB_IN_MEMORY: 'true', EMBEDDED_DB_THREAD: thread }),
        { logger: logs.logger },
      );
      opened.push(db);
      expect((await db.sql`select 1 + 1 as n`)[0]!.n).toBe(2);
      const told = logs.lines.filter((l) => l.msg === "the embedded database's module");
      expect(told.map((l) => l.edits)).toEqual([['fresh-mmap']]);
      expect(logs.lines.filter((l) => l.level >= 40)).toEqual([]);
    }
  }, 240_000);
});
