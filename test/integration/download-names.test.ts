import { parse } from 'content-disposition';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asciiFallback } from '../../src/domain/orders/disposition.js';
import { uniqueProject, zipOf, tarGzOf } from '../helpers/archives.js';
import { createSaleItem } from '../helpers/items.js';
import {
  listItem,
  sellerStatus,
  startSellingApp,
  type SellingContext,
} from '../helpers/selling.js';
import { clientFor, newWallet } from '../helpers/wallets.js';

/**
 * A buyer who paid can download whatever the seller named the file: the download's
 * `Content-Disposition` is valid header bytes for every name (RFC 6266: an ASCII `filename`
 * fallback, the exact name in `filename*`), so no name turns a paid order into a 500.
 */
let t: SellingContext;
beforeAll(async () => {
  t = await startSellingApp({ MAX_ACTIVE_LISTINGS: '100' });
});
afterAll(() => t?.close());

const rel = (url: string) => url.replace('http://marketplace.test', '');

/** Buys `itemId` with a fresh wallet and fetches the archive from its signed link. */
async function buyAndDownload(itemId: string) {
  const client = clientFor(t.app, newWallet());
  const { order } = await client.acquire(itemId);
  const res = await t.app.inject(rel(order.download_url));
  return { res, client, order };
}

function expectValidDisposition(header: unknown, name: string): void {
  expect(typeof header).toBe('string');
  const value = header as string;
  // header bytes a client can read: visible ASCII and spaces only, nothing Latin-1 or wider
  expect(value).toMatch(/^[\x20-\x7e]+$/);
  const parsed = parse(value);
  expect(parsed.type).toBe('attachment');
  // `parse` prefers `filename*`: the exact name comes back
  expect(parsed.parameters.filename).toBe(name);
  // the plain `filename` a legacy client reads is the printable-ASCII fallback
  const legacy = parse(value, { extended: false }).parameters.filename;
  expect(legacy).toBe(asciiFallback(name));
  expect(legacy).toMatch(/^[\x20-\x7e]+$/);
}

describe('downloads of listings uploaded under any file name', () => {
  const seller = newWallet();
  const uploaded: Array<[string, string, 'zip' | 'tar.gz', 'multipart' | 'json']> = [
    ['an emoji', 'tool-😀.zip', 'zip', 'multipart'],
    ['Cyrillic', 'плагин.tar.gz', 'tar.gz', 'multipart'],
    // JSON: the test's multipart writer does not escape quotes in its own header
    ['accents and double quotes', 'résumé "final".zip', 'zip', 'json'],
    ['CJK beyond the BMP and a percent sign', '𠜎工具 100%.zip', 'zip', 'multipart'],
    // 255 characters (the upload limit), 506 bytes of UTF-8
    ['255 characters of two-byte UTF-8', `${'ü'.repeat(251)}.zip`, 'zip', 'json'],
  ];
  it.each(uploaded)('%s: uploaded, scanned, bought and downloaded', async (_c, name, kind, enc) => {
    const files = uniqueProject();
    const bytes = kind === 'zip' ? zipOf(files) : await tarGzOf(files);
    const itemId = await listItem(t, seller, {
      bytes,
      compression: kind,
      fileName: name,
      encoding: enc,
    });
    await t.work();
    expect(await sellerStatus(t, seller, itemId)).toMatchObject({ status: 'active' });
    const { res, client, order } = await buyAndDownload(itemId);
    expect(res.statusCode).toBe(200);
    expect(res.rawPayload.equals(bytes)).toBe(true);
    expectValidDisposition(res.headers['content-disposition'], name);
    // our own client (and the MCP tool built on it) reads the exact name back
    const dl = await client.download(order.download_url);
    expect(dl.fileName).toBe(name);
  });

  // Names the upload refuses today (control characters, backslashes) may sit in older rows.
  const stored: Array<[string, string]> = [
    ['a control character', 'pro\u0001ject\u007f.zip'],
    ['a backslash and a quote', 'c:\\temp\\"x".zip'],
    ['a line break', 'evil\r\nSet-Cookie: a=b.zip'],
  ];
  it.each(stored)('%s (an older row): bought and downloaded', async (_case, name) => {
    const item = await createSaleItem(t.runtime.deps, { fileName: name });
    const { res } = await buyAndDownload(item.itemId);
    expect(res.statusCode).toBe(200);
    expect(res.rawPayload.equals(item.bytes)).toBe(true);
    expectValidDisposition(res.headers['content-disposition'], name);
    expect(res.headers['set-cookie']).toBeUndefined();
  });
});
