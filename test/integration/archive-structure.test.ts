import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTarGz, buildZip, tarGzOf, uniqueProject, zipOf } from '../helpers/archives.js';
import { startSellingApp, uploadRequest, type SellingContext } from '../helpers/selling.js';

/** An upload whose archive only looks like one is refused before the fee prompt (spec 4.3). */

let t: SellingContext;
beforeAll(async () => {
  t = await startSellingApp();
});
afterAll(() => t.close());

const unpaid = (input: Parameters<typeof uploadRequest>[0]) =>
  t.app.inject({ method: 'POST', url: '/api/v1/items', ...uploadRequest(input) });

describe('archive structure before the fee', () => {
  const cases: Array<[string, () => Promise<Buffer> | Buffer, 'zip' | 'tar.gz']> = [
    [
      'zip magic bytes, then noise',
      () => Buffer.concat([Buffer.from('PK\x03\x04'), randomBytes(4096)]),
      'zip',
    ],
    [
      'a real zip without its central directory',
      () => {
        const zip = zipOf(uniqueProject());
        return zip.subarray(0, zip.indexOf(Buffer.from('PK\x01\x02')));
      },
      'zip',
    ],
    [
      'an end-of-central-directory record pointing past the file',
      () => {
        const eocd = Buffer.alloc(22);
        eocd.writeUInt32LE(0x06054b50, 0);
        eocd.writeUInt16LE(1, 8);
        eocd.writeUInt16LE(1, 10);
        eocd.writeUInt32LE(46, 12);
        eocd.writeUInt32LE(9999, 16);
        return Buffer.concat([Buffer.from('PK\x03\x04'), randomBytes(64), eocd]);
      },
      'zip',
    ],
    [
      'gzip magic bytes, then noise',
      () => Buffer.concat([Buffer.from([0x1f, 0x8b, 8, 0]), randomBytes(4096)]),
      'tar.gz',
    ],
    [
      'real gzip of something that is not tar',
      () => gzipSync(Buffer.from('hello world\n'.repeat(200))),
      'tar.gz',
    ],
    ['real gzip of a too short tar', () => gzipSync(Buffer.from('x'.repeat(100))), 'tar.gz'],
    // readable, but nothing to sell: the scan would refuse them after the fee was paid
    ['a zip with no entries', () => buildZip([]), 'zip'],
    ['a zip of folders only', () => buildZip([{ name: 'src/' }, { name: 'src/lib/' }]), 'zip'],
    [
      'a tar.gz of folders only',
      () =>
        buildTarGz([
          { name: 'src/', type: 'directory' },
          { name: 'src/lib/', type: 'directory' },
        ]),
      'tar.gz',
    ],
  ];
  for (const [name, make, compression] of cases) {
    for (const encoding of ['multipart', 'json'] as const) {
      it(`${name} (${encoding}): 400 unsupported_archive, no 402`, async () => {
        const res = await unpaid({ bytes: await make(), compression, encoding });
        expect(res.statusCode).toBe(400);
        expect(res.json()).toMatchObject({ error: 'unsupported_archive' });
        expect(res.headers['payment-required']).toBeUndefined();
      });
    }
  }

  it('real zip and tar.gz archives get the fee prompt', async () => {
    const zip = await unpaid({ bytes: zipOf(uniqueProject()) });
    expect(zip.statusCode).toBe(402);
    const tgz = await unpaid({ bytes: await tarGzOf(uniqueProject()), compression: 'tar.gz' });
    expect(tgz.statusCode).toBe(402);
    const tgzJson = await unpaid({
      bytes: await tarGzOf(uniqueProject()),
      compression: 'tar.gz',
      encoding: 'json',
    });
    expect(tgzJson.statusCode).toBe(402);
  });

  it('a file after folders, or after more headers than are read before the fee, gets the prompt', async () => {
    const project = Object.entries(uniqueProject()).map(([name, data]) => ({ name, data }));
    const zip = await unpaid({ bytes: buildZip([{ name: 'src/' }, ...project]) });
    expect(zip.statusCode).toBe(402);
    const dirs = Array.from({ length: 200 }, (_, i) => ({
      name: `d${i}/`,
      type: 'directory' as const,
    }));
    // 200 folder headers (100 KiB) before the first file: past the lookahead, left to the scan
    const tgz = await unpaid({
      bytes: await buildTarGz([...dirs, ...project]),
      compression: 'tar.gz',
    });
    expect(tgz.statusCode).toBe(402);
  });
});
