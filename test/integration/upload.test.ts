import { utimes } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { purgeDeleted } from '../../src/domain/listings/purge.js';
import { reconcileNow } from '../../src/runtime.js';
import type { LocalFacilitator } from '../../src/x402/local-facilitator.js';
import { promptOf } from '../helpers/wallets.js';
import { altered } from '../helpers/forge.js';
import { newWallet } from '../helpers/wallets.js';
import { tarGzOf, uniqueProject, zipOf } from '../helpers/archives.js';
import {
  asWallet,
  listItem,
  METADATA,
  startSellingApp,
  upload,
  uploadRequest,
  type SellingContext,
} from '../helpers/selling.js';

let t: SellingContext;
beforeAll(async () => {
  t = await startSellingApp({ MAX_ACTIVE_LISTINGS: '3', REGION_DENY_LIST: 'KP' });
});
afterAll(() => t?.close());

const post = (req: ReturnType<typeof uploadRequest>, headers: Record<string, string> = {}) =>
  t.app.inject({
    method: 'POST',
    url: '/api/v1/items',
    payload: req.payload,
    headers: { ...req.headers, ...headers },
  });

describe('POST /api/v1/items: validation before any fee', () => {
  const bad: Array<[string, Parameters<typeof uploadRequest>[0], number, string]> = [
    ['missing metadata', { bytes: zipOf(uniqueProject()), metadata: '' }, 400, 'invalid_metadata'],
    [
      'metadata not JSON',
      { bytes: zipOf(uniqueProject()), metadata: '{nope' },
      400,
      'invalid_metadata',
    ],
    [
      'title too long',
      { bytes: zipOf(uniqueProject()), metadata: { ...METADATA, title: 'x'.repeat(201) } },
      400,
      'invalid_metadata',
    ],
    [
      'description too long',
      { bytes: zipOf(uniqueProject()), metadata: { ...METADATA, description: 'x'.repeat(4001) } },
      400,
      'invalid_metadata',
    ],
    [
      'prompt_summary too long',
      {
        bytes: zipOf(uniqueProject()),
        metadata: { ...METADATA, prompt_summary: 'x'.repeat(1001) },
      },
      400,
      'invalid_metadata',
    ],
    [
      'empty tech_stack',
      { bytes: zipOf(uniqueProject()), metadata: { ...METADATA, tech_stack: '  ' } },
      400,
      'invalid_metadata',
    ],
    [
      'tech_stack too long',
      { bytes: zipOf(uniqueProject()), metadata: { ...METADATA, tech_stack: 'x'.repeat(201) } },
      400,
      'invalid_metadata',
    ],
    [
      'missing title',
      { bytes: zipOf(uniqueProject()), metadata: { ...METADATA, title: undefined } },
      400,
      'invalid_metadata',
    ],
    [
      'unknown key',
      { bytes: zipOf(uniqueProject()), metadata: { ...METADATA, license: 'MIT' } },
      400,
      'unknown_metadata_key',
    ],
    [
      'non-USDC price',
      { bytes: zipOf(uniqueProject()), metadata: { ...METADATA, prices: { ETH: 1 } } },
      400,
      'invalid_price',
    ],
    [
      'price below range',
      { bytes: zipOf(uniqueProject()), metadata: { ...METADATA, prices: { USDC: 0.05 } } },
      400,
      'invalid_price',
    ],
    [
      'price above range',
      { bytes: zipOf(uniqueProject()), metadata: { ...METADATA, prices: { USDC: 100.5 } } },
      400,
      'invalid_price',
    ],
    [
      'price as string',
      { bytes: zipOf(uniqueProject()), metadata: { ...METADATA, prices: { USDC: '5' } } },
      400,
      'invalid_price',
    ],
    [
      'bad extension',
      { bytes: zipOf(uniqueProject()), fileName: 'project.rar' },
      400,
      'invalid_file_name',
    ],
    [
      'file name without a base name',
      { bytes: zipOf(uniqueProject()), fileName: '.zip' },
      400,
      'invalid_file_name',
    ],
    [
      'file name with a control character',
      { bytes: zipOf(uniqueProject()), fileName: 'pro\u0001ject.zip' },
      400,
      'invalid_file_name',
    ],
    [
      'zip named .tar.gz but not gzip',
      { bytes: zipOf(uniqueProject()), fileName: 'project.tar.gz' },
      400,
      'unsupported_archive',
    ],
    [
      'not an archive',
      { bytes: Buffer.from('just some text, not a zip'), fileName: 'project.zip' },
      400,
      'unsupported_archive',
    ],
    [
      'JSON: bad compression',
      { bytes: zipOf(uniqueProject()), encoding: 'json', compression: 'rar' as 'zip' },
      400,
      'unsupported_archive',
    ],
    [
      'JSON: tar.gz claimed for zip bytes',
      { bytes: zipOf(uniqueProject()), encoding: 'json', compression: 'tar.gz' },
      400,
      'unsupported_archive',
    ],
    [
      'JSON: unknown metadata key',
      { bytes: zipOf(uniqueProject()), encoding: 'json', metadata: { ...METADATA, extra: 1 } },
      400,
      'unknown_metadata_key',
    ],
  ];
  it.each(bad)('%s → %s %s, never a 402', async (_name, input, status, code) => {
    const res = await post(uploadRequest(input));
    expect(res.statusCode).toBe(status);
    expect(res.json()).toMatchObject({ error: code });
    expect(res.headers['payment-required']).toBeUndefined();
  });

  it('a multipart body without a file part → 400 missing_file; JSON without a file → 400', async () => {
    const boundary = 'b0undary';
    const body = [
      `--${boundary}`,
      'Content-Disposition: form-data; name="metadata"',
      '',
      JSON.stringify(METADATA),
      `--${boundary}--`,
      '',
    ].join('\r\n');
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/items',
      payload: body,
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'missing_file' });
    expect(res.headers['payment-required']).toBeUndefined();
  });

  it('an upload from an unserved region → 403 region_unavailable before any fee is asked', async () => {
    const res = await post(uploadRequest({ bytes: zipOf(uniqueProject()) }), {
      'cf-ipcountry': 'KP',
    });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ error: 'region_unavailable', message: expect.any(String) });
    expect(res.headers['payment-required']).toBeUndefined();
    expect(await t.blobFiles()).toEqual([]);
  });

  it('refuses an archive over 10 MB with 413, multipart and JSON', async () => {
    const big = Buffer.concat([
      zipOf(uniqueProject()).subarray(0, 4),
      Buffer.alloc(10 * 1024 * 1024 + 1),
    ]);
    for (const encoding of ['multipart', 'json'] as const) {
      const res = await post(uploadRequest({ bytes: big, encoding }));
      expect(res.statusCode, encoding).toBe(413);
      expect(res.json()).toMatchObject({ error: 'payload_too_large' });
    }
    expect(await t.blobFiles()).toEqual([]);
  });

  it('a valid unpaid upload gets exactly the 0.01 USDC fee prompt on every chain', async () => {
    for (const encoding of ['multipart', 'json'] as const) {
      const res = await post(uploadRequest({ bytes: zipOf(uniqueProject()), encoding }));
      expect(res.statusCode).toBe(402);
      const prompt = promptOf(res);
      expect(prompt.accepts.map((a) => a.network).sort()).toEqual(['eip155:137', 'eip155:8453']);
      for (const a of prompt.accepts) expect(a.amount).toBe('10000');
      expect(res.json()).toMatchObject({ x402Version: 2, accepts: prompt.accepts });
    }
    expect(await t.blobFiles()).toEqual([]);
  });
});

describe('POST /api/v1/items: paid', () => {
  it('202 pending_scan with an invoice; provisions the seller on every chain; bytes stored', async () => {
    const wallet = newWallet();
    const { paid } = await upload(t, wallet, {
      bytes: await tarGzOf(uniqueProject()),
      compression: 'tar.gz',
      encoding: 'json',
    });
    expect(paid.statusCode).toBe(202);
    const body = paid.json() as { item_id: string; status: string; invoice_url: string };
    expect(Object.keys(body).sort()).toEqual(['invoice_url', 'item_id', 'status']);
    expect(body.status).toBe('pending_scan');
    expect(paid.headers['payment-response']).toBeTruthy();

    const sql = t.runtime.deps.sql;
    const [agent] = await sql<
      { id: string; salesChains: string[] }[]
    >`select id, sales_chains from agents where address = ${wallet.address.toLowerCase()}`;
    expect(agent!.salesChains.sort()).toEqual(['base', 'polygon']);
    const payouts =
      await sql`select chain from payout_addresses where agent_id = ${agent!.id} order by chain`;
    expect(payouts.map((p) => p.chain)).toEqual(['base', 'polygon']);
    const [item] = await sql<
      { status: string; archiveKey: string; compression: string }[]
    >`select status, archive_key, compression from items where id = ${body.item_id}`;
    expect(item).toMatchObject({ status: 'pending_scan', compression: 'tar.gz' });
    expect(await t.blobFiles()).toContain(item!.archiveKey);
    const [job] = await sql`select state from jobs where item_id = ${body.item_id}`;
    expect(job?.state).toBe('queued');

    const url = new URL(body.invoice_url);
    const inv = await t.app.inject({ method: 'GET', url: url.pathname + url.search });
    expect(inv.statusCode).toBe(200);
    expect(inv.json()).toMatchObject({
      kind: 'listing_fee',
      status: 'paid',
      amount: { total_raw: '10000', currency: 'USDC' },
    });
    const md = await t.app.inject({
      method: 'GET',
      url: url.pathname + url.search,
      headers: { accept: 'text/markdown' },
    });
    expect(md.body).toContain('Listing fee');
    const sig = url.searchParams.get('sig')!;
    url.searchParams.set('sig', altered(sig));
    expect(url.searchParams.get('sig')).not.toBe(sig);
    const forged = await t.app.inject({ method: 'GET', url: url.pathname + url.search });
    expect(forged.statusCode).toBe(403);
  });

  it('the same signed request again returns the stored result and keeps no extra bytes', async () => {
    const wallet = newWallet();
    const req = uploadRequest({ bytes: zipOf(uniqueProject()) });
    const first = await post(req);
    const prompt = promptOf(first);
    const { signPayment } = await import('../helpers/wallets.js');
    const { header } = await signPayment(wallet, prompt, prompt.accepts[1]!);
    const before = (await t.blobFiles()).length;
    const a = await post(req, { 'payment-signature': header });
    const b = await post(req, { 'payment-signature': header });
    expect(a.statusCode).toBe(202);
    expect(b.statusCode).toBe(202);
    expect(b.json().item_id).toBe(a.json().item_id);
    expect((await t.blobFiles()).length).toBe(before + 1);
    const [{ n }] = (await t.runtime.deps.sql`select count(*)::int as n from items where seller_id =
      (select id from agents where address = ${wallet.address.toLowerCase()})`) as unknown as [
      { n: number },
    ];
    expect(n).toBe(1);
  });

  it('duplicate rules: listed by anyone → 409; rejected → 403 forever; deleted by the same seller → allowed', async () => {
    const alice = newWallet();
    const bob = newWallet();
    const bytes = zipOf(uniqueProject());
    const first = await listItem(t, alice, { bytes });

    const again = await post(uploadRequest({ bytes }));
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ error: 'duplicate_code' });
    const byBob = await upload(t, bob, { bytes });
    expect(byBob.first.statusCode).toBe(409);

    // Deleted by Alice: Alice may list the same bytes again (new uuid); Bob may not while it is kept.
    const del = await asWallet(t, alice, 'DELETE', `/api/v1/items/${first}`);
    expect(del.statusCode).toBe(200);
    const bobAfterDelete = await upload(t, bob, { bytes });
    expect(bobAfterDelete.paid.statusCode).toBe(409);
    const relisted = await listItem(t, alice, { bytes });
    expect(relisted).not.toBe(first);

    // Rejected by the scan: nobody can list it again.
    const trivial = zipOf({ 'a.js': 'console.log(1);\n' });
    const rejectedId = await listItem(t, alice, { bytes: trivial });
    await t.work();
    const [row] = await t.runtime.deps
      .sql`select status, status_reason from items where id = ${rejectedId}`;
    expect(row).toMatchObject({ status: 'rejected', statusReason: 'insufficient_complexity' });
    // Terminal, and the fee is kept.
    const [fee] = await t.runtime.deps
      .sql`select amount_micro from listing_fees where item_id = ${rejectedId}`;
    expect(fee?.amountMicro).toBe(10_000);
    for (const w of [alice, bob]) {
      const res = await upload(t, w, { bytes: trivial });
      expect(res.first.statusCode).toBe(403);
      expect(res.first.json()).toMatchObject({ error: 'code_previously_rejected' });
    }
  });

  it('enforces the listing cap per seller (3 here) after the signature, before settlement', async () => {
    const wallet = newWallet();
    for (let i = 0; i < 3; i++) await listItem(t, wallet, { bytes: zipOf(uniqueProject()) });
    const before = await t.blobFiles();
    const { first, paid } = await upload(t, wallet, { bytes: zipOf(uniqueProject()) });
    expect(first.statusCode).toBe(402);
    expect(paid.statusCode).toBe(409);
    expect(paid.json()).toMatchObject({ error: 'listing_limit_reached' });
    expect(paid.headers['payment-response']).toBeUndefined();
    expect(await t.blobFiles()).toEqual(before);
  });

  it('retries of an upload whose fee is pending store the archive once; bytes nobody needs are swept', async () => {
    const wallet = newWallet();
    const bytes = zipOf(uniqueProject());
    const req = uploadRequest({ bytes });
    const prompt = promptOf(await post(req));
    const { signPayment } = await import('../helpers/wallets.js');
    const local = t.runtime.deps.facilitator as LocalFacilitator;
    const before = await t.blobFiles();
    local.injectFault({ op: 'settle', outcome: 'pending' });
    const signed = await signPayment(wallet, prompt, prompt.accepts[0]!);
    for (let i = 0; i < 7; i++) {
      const res = await post(req, { 'payment-signature': signed.header });
      expect(res.statusCode).toBe(409);
      expect(res.json()).toMatchObject({ error: 'payment_settlement_pending' });
    }
    // A fresh authorization for the same bytes while the first is pending: still one copy.
    local.injectFault({ op: 'settle', outcome: 'capacity' });
    const fresh = await signPayment(wallet, prompt, prompt.accepts[1]!);
    expect((await post(req, { 'payment-signature': fresh.header })).statusCode).toBe(503);
    const added = (await t.blobFiles()).filter((f) => !before.includes(f));
    expect(added).toHaveLength(1);

    // The pending fee fails for good: no listing will ever need these bytes. Young bytes are
    // never swept (an upload may be between its put and its claim); an hour later they are.
    const [pay] = await t.runtime.deps.sql<{ transaction: string }[]>`
      select transaction from x402_payments where nonce = ${signed.nonce}`;
    await local.resolvePending(pay!.transaction, 'failed');
    await reconcileNow(t.runtime.deps, 0);
    const file = path.join(t.archivesDir, added[0]!);
    expect((await purgeDeleted(t.runtime.deps)).orphans).toBe(0);
    const hourAgo = new Date(Date.now() - 2 * 3600_000);
    await utimes(file, hourAgo, hourAgo);
    // An active listing's bytes of the same age stay.
    const kept = await listItem(t, newWallet(), { bytes: zipOf(uniqueProject()) });
    const [row] = await t.runtime.deps.sql<{ archiveKey: string }[]>`
      select archive_key from items where id = ${kept}`;
    const keptFile = path.join(t.archivesDir, row!.archiveKey);
    await utimes(keptFile, hourAgo, hourAgo);
    expect((await purgeDeleted(t.runtime.deps)).orphans).toBe(1);
    expect(await t.blobFiles()).not.toContain(added[0]);
    expect(await t.blobFiles()).toContain(row!.archiveKey);
  });

  it('a failed payment leaves neither a row nor bytes', async () => {
    const wallet = newWallet();
    const req = uploadRequest({ bytes: zipOf(uniqueProject()) });
    const first = await post(req);
    const prompt = promptOf(first);
    const { signPayment } = await import('../helpers/wallets.js');
    const { header } = await signPayment(wallet, prompt, prompt.accepts[0]!, {
      authorization: { value: '1' },
    });
    const before = await t.blobFiles();
    const res = await post(req, { 'payment-signature': header });
    expect(res.statusCode).toBe(402);
    expect(res.json()).toMatchObject({ error: 'payment_verification_failed' });
    expect(await t.blobFiles()).toEqual(before);
    const rows = await t.runtime.deps
      .sql`select 1 from agents where address = ${wallet.address.toLowerCase()}`;
    expect(rows.length).toBe(0);
  });
});
