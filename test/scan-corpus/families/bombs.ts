import { deflateRawSync, gzipSync } from 'node:zlib';
import { buildZip, type ZipEntrySpec } from '../../helpers/archives.js';
import type { CorpusCase } from '../types.js';
import { baseProject, hostileCase, nest, pack, tarGzWith, zipWith } from '../build.js';

/**
 * Decompression bombs, flat and nested: one entry far past the ratio limit, a size that lies,
 * entries overlapping one kernel, many medium entries that only together pass the limits, a gzip
 * of zeros disguised as a data file, bombs inside nested archives, and entry-count floods.
 */
const F = 'bombs';
const MB = 1024 * 1024;
const zeros = (mb: number) => Buffer.alloc(mb * MB);
const entries = (files: Record<string, string | Buffer>): ZipEntrySpec[] =>
  Object.entries(files).map(([name, data]) => ({ name, data }));

/** A zip whose extra central record points inside a stored carrier, at a kernel's local header. */
function overlapBomb(name: string): Buffer {
  const kernel = buildZip([{ name: 'kernel.txt', data: zeros(2) }]);
  const kernelLocal = kernel.subarray(0, kernel.readUInt32LE(kernel.length - 6));
  const project = entries(baseProject(name));
  const carrierSpec: ZipEntrySpec = { name: 'carrier.bin', data: kernelLocal, method: 0 };
  const plain = buildZip([...project, carrierSpec]);
  // Where the carrier's data starts: after every earlier entry and its own 30-byte header + name.
  const cdOffset = plain.readUInt32LE(plain.length - 6);
  const carrierData = cdOffset - kernelLocal.length;
  const rec = Buffer.from(
    kernel.subarray(kernel.readUInt32LE(kernel.length - 6), kernel.length - 22),
  );
  rec.writeUInt32LE(carrierData, 42);
  const cdSize = plain.readUInt32LE(plain.length - 10);
  const end = Buffer.from(plain.subarray(plain.length - 22));
  const count = end.readUInt16LE(10) + 1;
  end.writeUInt16LE(count, 8);
  end.writeUInt16LE(count, 10);
  end.writeUInt32LE(cdSize + rec.length, 12);
  return Buffer.concat([
    plain.subarray(0, cdOffset),
    plain.subarray(cdOffset, cdOffset + cdSize),
    rec,
    end,
  ]);
}

function lyingSize(name: string, usize: number): Buffer {
  const data = zeros(8);
  return buildZip([
    ...entries(baseProject(name)),
    {
      name: 'zeros.dat',
      compressed: deflateRawSync(data, { level: 9 }),
      local: { usize },
      central: { usize },
    },
  ]);
}

const many = (count: number, prefix: string) =>
  Object.fromEntries(Array.from({ length: count }, (_, i) => [`${prefix}/f${i}.txt`, `${i}\n`]));

export const cases: CorpusCase[] = [
  hostileCase(F, 'flat-ratio', 'zip', 'compression_ratio', (n) =>
    zipWith(baseProject(n), [{ name: 'assets/zeros.bin', data: zeros(8) }]),
  ),
  hostileCase(F, 'flat-ratio', 'tar.gz', 'compression_ratio', (n) =>
    tarGzWith(baseProject(n), [{ name: 'assets/zeros.bin', data: zeros(8) }]),
  ),
  hostileCase(F, 'deep-dir-ratio', 'zip', 'compression_ratio', (n) =>
    zipWith(baseProject(n), [{ name: 'a/b/c/d/e/f/g/zeros.txt', data: zeros(6) }]),
  ),
  hostileCase(F, 'lying-small-size', 'zip', 'size_mismatch', (n) => lyingSize(n, 1000)),
  hostileCase(F, 'lying-huge-size', 'zip', 'extracted_size_limit', (n) => lyingSize(n, 900 * MB)),
  hostileCase(F, 'overlapping-entries', 'zip', 'overlapping_entries', overlapBomb),
  hostileCase(F, 'many-medium-entries', 'zip', 'compression_ratio', (n) =>
    zipWith(
      baseProject(n),
      Array.from({ length: 40 }, (_, i) => ({ name: `data/part${i}.bin`, data: zeros(0.75) })),
    ),
  ),
  hostileCase(F, 'many-medium-entries', 'tar.gz', 'compression_ratio', (n) =>
    tarGzWith(
      baseProject(n),
      Array.from({ length: 40 }, (_, i) => ({ name: `data/part${i}.bin`, data: zeros(0.75) })),
    ),
  ),
  hostileCase(F, 'gzip-data-file', 'zip', 'compression_ratio', (n) =>
    zipWith(baseProject(n), [
      { name: 'fixtures/events.json.gz', data: gzipSync(zeros(8)), method: 0 },
    ]),
  ),
  hostileCase(F, 'gzip-data-file', 'tar.gz', 'compression_ratio', (n) =>
    tarGzWith(baseProject(n), [{ name: 'logs/app.log.gz', data: gzipSync(zeros(8)) }]),
  ),
  hostileCase(F, 'nested-zip-bomb', 'zip', 'compression_ratio', (n) =>
    nest(
      'zip',
      n,
      'vendor/assets.zip',
      zipWith(baseProject(`${n}/i`), [{ name: 'z', data: zeros(8) }]),
    ),
  ),
  hostileCase(F, 'nested-targz-bomb', 'zip', 'compression_ratio', async (n) =>
    nest('zip', n, 'vendor/assets.tar.gz', await tarGzWith({}, [{ name: 'z', data: zeros(8) }])),
  ),
  hostileCase(F, 'nested-zip-bomb', 'tar.gz', 'compression_ratio', (n) =>
    nest('tar.gz', n, 'lib/blob.jar', zipWith({}, [{ name: 'z', data: zeros(8) }])),
  ),
  hostileCase(F, 'layered-gzip', 'zip', 'nesting_too_deep', (n) =>
    zipWith(baseProject(n), [{ name: 'data/x.gz', data: gzipSync(gzipSync(zeros(4))), method: 0 }]),
  ),
  hostileCase(F, 'zip-in-zip-in-zip', 'tar.gz', 'nesting_too_deep', async (n) =>
    nest('tar.gz', n, 'a.zip', await pack('zip', { 'b.zip': zipWith({ 'c.txt': 'x\n' }) })),
  ),
  hostileCase(F, 'entry-flood', 'zip', 'too_many_entries', (n) =>
    zipWith({ ...baseProject(n), ...many(10_001, 'flood') }),
  ),
  hostileCase(F, 'entry-flood', 'tar.gz', 'too_many_entries', (n) =>
    tarGzWith({ ...baseProject(n), ...many(10_001, 'flood') }),
  ),
];
