import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestContext } from '../helpers/app.js';
import { createSaleItem } from '../helpers/items.js';
import { clientFor, newWallet, promptOf, signPayment } from '../helpers/wallets.js';

/**
 * A buyer who paid can download (issue s29): what the download route answers when the archive
 * store fails or lost the bytes after settlement, and byte ranges for a resumed download.
 */
let t: TestContext;
const archives = mkdtempSync(path.join(tmpdir(), 'dl-edges-'));
beforeAll(async () => {
  t = await startTestApp({ ARCHIVES_DIR: archives });
});
afterAll(() => t?.close());

const deps = () => t.runtime.deps;
const rel = (url: string) => url.replace('http://marketplace.test', '');

async function bought() {
  const item = await createSaleItem(deps(), { priceUsdc: 1.25 });
  const buyer = newWallet();
  const client = clientFor(t.app, buyer);
  const { order } = await client.acquire(item.itemId);
  return { item, buyer, client, order };
}

describe('the store fails after the buyer paid', () => {
  it('an unreadable store is 503 storage_unavailable with Retry-After, never a 500; the order stands', async () => {
    const { order, item } = await bought();
    // the store's directory replaced by a file: every read fails with ENOTDIR (a real fs error)
    const dir = path.join(archives, 'archives');
    renameSync(dir, `${dir}.away`);
    writeFileSync(dir, 'not a directory');
    try {
      for (const method of ['GET', 'HEAD'] as const) {
        const res = await t.app.inject({ method, url: rel(order.download_url) });
        expect(res.statusCode).toBe(503);
        expect(res.headers['retry-after']).toBeDefined();
        if (method === 'GET') expect(res.json()).toMatchObject({ error: 'storage_unavailable' });
      }
    } finally {
      rmSync(dir);
      renameSync(`${dir}.away`, dir);
    }
    // back: the same link serves the bytes
    const res = await t.app.inject(rel(order.download_url));
    expect(res.statusCode).toBe(200);
    expect(res.rawPayload.equals(item.bytes)).toBe(true);
  });

  it('bytes missing from the store: 404 that says the order stands and names the order', async () => {
    const { order, item } = await bought();
    const file = path.join(archives, 'archives', `${item.sha256}.zip`);
    renameSync(file, `${file}.away`);
    try {
      const res = await t.app.inject(rel(order.download_url));
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ error: 'archive_unavailable', order_id: order.order_id });
      // the order itself is not lost: it is still the buyer's, with fresh links
      const [row] = await deps().sql`select status from orders where id = ${order.order_id}`;
      expect(row).toMatchObject({ status: 'completed' });
    } finally {
      mkdirSync(path.dirname(file), { recursive: true });
      renameSync(`${file}.away`, file);
    }
  });
});

describe('a link never tells whether an order exists', () => {
  it('an unknown order id answers as a tampered signature on a real order: 403 invalid_link, the same body', async () => {
    const { order } = await bought();
    const real = new URL(order.download_url);
    const tampered = new URL(real);
    tampered.searchParams.set('sig', `${real.searchParams.get('sig')!.slice(0, -2)}AA`);
    const unknown = new URL(real);
    unknown.pathname = real.pathname.replace(
      order.order_id,
      '7d1c0e0e-1111-4111-8111-111111111111',
    );
    const invoice = new URL(order.invoice_url!);
    invoice.pathname = invoice.pathname.replace(
      order.order_id,
      '7d1c0e0e-1111-4111-8111-111111111111',
    );
    const answers = await Promise.all(
      [tampered, unknown, invoice].map((u) => t.app.inject(rel(u.toString()))),
    );
    for (const res of answers) {
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({
        error: 'invalid_link',
        message: 'the link signature does not match',
      });
    }
  });
});

describe('byte ranges (a resumed download, curl -C -)', () => {
  it('Range answers 206 with that slice; 200 advertises Accept-Ranges and a strong ETag', async () => {
    const { order, item } = await bought();
    const url = rel(order.download_url);
    const size = item.bytes.length;
    const full = await t.app.inject(url);
    expect(full.statusCode).toBe(200);
    expect(full.headers['accept-ranges']).toBe('bytes');
    const etag = full.headers.etag as string;
    expect(etag).toBe(`"${item.sha256}"`);

    const part = await t.app.inject({ url, headers: { range: 'bytes=10-19' } });
    expect(part.statusCode).toBe(206);
    expect(part.headers['content-range']).toBe(`bytes 10-19/${size}`);
    expect(part.headers['content-length']).toBe('10');
    expect(part.rawPayload.equals(item.bytes.subarray(10, 20))).toBe(true);

    // resume from an offset to the end, as curl -C - sends it
    const rest = await t.app.inject({ url, headers: { range: 'bytes=100-', 'if-range': etag } });
    expect(rest.statusCode).toBe(206);
    expect(rest.headers['content-range']).toBe(`bytes 100-${size - 1}/${size}`);
    expect(rest.rawPayload.equals(item.bytes.subarray(100))).toBe(true);

    // the last bytes
    const tail = await t.app.inject({ url, headers: { range: 'bytes=-5' } });
    expect(tail.statusCode).toBe(206);
    expect(tail.rawPayload.equals(item.bytes.subarray(size - 5))).toBe(true);

    // HEAD with a range: the headers of the 206, no body
    const head = await t.app.inject({ method: 'HEAD', url, headers: { range: 'bytes=0-0' } });
    expect(head.statusCode).toBe(206);
    expect(head.headers['content-length']).toBe('1');
    expect(head.rawPayload.length).toBe(0);
  });

  it('a range past the end is 416 with the size; other bytes, an inverted range or a stale If-Range get the whole file', async () => {
    const { order, item } = await bought();
    const url = rel(order.download_url);
    const size = item.bytes.length;
    const past = await t.app.inject({ url, headers: { range: `bytes=${size}-` } });
    expect(past.statusCode).toBe(416);
    expect(past.headers['content-range']).toBe(`bytes */${size}`);
    expect(past.json()).toMatchObject({ error: 'range_not_satisfiable' });

    for (const headers of [
      { range: 'bytes=0-1', 'if-range': '"another-version"' },
      { range: 'bytes=0-1', 'if-range': 'Wed, 21 Oct 2015 07:28:00 GMT' },
      { range: 'lines=1-2' },
      { range: 'bytes=oops' },
      { range: 'bytes=0-1,5-6' },
      // an end before its start is an invalid range (RFC 9110 14.1.1), not one past the end
      { range: 'bytes=5-2' },
      { range: 'bytes=0-1, 9-3' },
    ]) {
      const res = await t.app.inject({ url, headers });
      expect(res.statusCode, JSON.stringify(headers)).toBe(200);
      expect(res.rawPayload.equals(item.bytes)).toBe(true);
    }
    // a bad link never gets a 206 or a 416
    const forged = await t.app.inject({
      url: url.replace(/sig=[^&]+/, 'sig=AAAA'),
      headers: { range: `bytes=${size}-` },
    });
    expect(forged.statusCode).toBe(403);
  });

  it('a suffix range longer than the archive serves all of it (RFC 9110 14.1.2), as zip readers ask for the end', async () => {
    const { order, item } = await bought();
    const url = rel(order.download_url);
    const size = item.bytes.length;
    // a remote zip reader asks for the last 65,557 bytes (end of central directory plus the
    // largest comment) whatever the archive's size; a smaller archive is served whole
    for (const range of ['bytes=-65557', `bytes=-${size + 1}`, 'bytes=-99999999999999999999']) {
      const res = await t.app.inject({ url, headers: { range } });
      expect(res.statusCode, range).toBe(206);
      expect(res.headers['content-range']).toBe(`bytes 0-${size - 1}/${size}`);
      expect(res.rawPayload.equals(item.bytes)).toBe(true);
    }
    // exactly the size, and one byte: unchanged
    const whole = await t.app.inject({ url, headers: { range: `bytes=-${size}` } });
    expect(whole.headers['content-range']).toBe(`bytes 0-${size - 1}/${size}`);
    const last = await t.app.inject({ url, headers: { range: 'bytes=-1' } });
    expect(last.headers['content-range']).toBe(`bytes ${size - 1}-${size - 1}/${size}`);
    // a suffix of no bytes stays unsatisfiable
    const none = await t.app.inject({ url, headers: { range: 'bytes=-0' } });
    expect(none.statusCode).toBe(416);
    expect(none.headers['content-range']).toBe(`bytes */${size}`);
  });
});

describe('a replayed payment', () => {
  it("after it succeeded the buyer's retry (its payment identifier) answers the same order with a link that downloads, charging nothing more", async () => {
    const item = await createSaleItem(deps(), { priceUsdc: 0.5 });
    const buyer = newWallet();
    const url = `/api/v1/items/${item.itemId}/acquire`;
    const prompt = promptOf(await t.app.inject({ method: 'POST', url }));
    const signed = await signPayment(buyer, prompt, prompt.accepts[0]!, {
      paymentId: `pay_${randomUUID()}`,
    });
    const send = () =>
      t.app.inject({
        method: 'POST',
        url,
        headers: { 'payment-signature': signed.header },
        payload: { policy_accepted: true, license_accepted: true },
      });
    const first = (await send()).json() as { order_id: string };
    const again = await send();
    expect(again.statusCode).toBe(200);
    const body = again.json() as { order_id: string; download_url: string };
    expect(body.order_id).toBe(first.order_id);
    const dl = await t.app.inject(rel(body.download_url));
    expect(dl.statusCode).toBe(200);
    expect(dl.rawPayload.equals(item.bytes)).toBe(true);
    const [n] = await deps().sql<{ n: number }[]>`
      select count(*)::int as n from orders where item_id = ${item.itemId}`;
    expect(n!.n).toBe(1);
  });
});
