import { createHash } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { archiveKeyOf } from '../../src/domain/listings/listings.js';
import { uniqueProject, zipOf } from '../helpers/archives.js';
import { startSellingApp, uploadRequest, type SellingContext } from '../helpers/selling.js';
import { newWallet, promptOf, signPayment } from '../helpers/wallets.js';

/**
 * Concurrent uploads under one listing-fee signature, against the real app and the filesystem
 * store: whatever the race, the storage directory holds exactly the bytes some listing refers to.
 */

let t: SellingContext;
beforeAll(async () => {
  t = await startSellingApp();
});
afterAll(() => t.close());

const keyOf = (bytes: Buffer) =>
  archiveKeyOf(createHash('sha256').update(bytes).digest('hex'), 'zip');

/** A fee signature for one upload, and the paid request that carries it for any archive. */
async function signedFee() {
  const first = await t.app.inject({
    method: 'POST',
    url: '/api/v1/items',
    ...uploadRequest({ bytes: zipOf(uniqueProject()) }),
  });
  const prompt = promptOf(first);
  const { header } = await signPayment(newWallet(), prompt, prompt.accepts[0]!);
  return (bytes: Buffer) => {
    const req = uploadRequest({ bytes });
    return t.app.inject({
      method: 'POST',
      url: '/api/v1/items',
      payload: req.payload,
      headers: { ...req.headers, 'payment-signature': header },
    });
  };
}

it('two identical paid uploads at once store the archive once, for one listing', async () => {
  const before = await t.blobFiles();
  const bytes = zipOf(uniqueProject());
  const send = await signedFee();
  const [a, b] = await Promise.all([send(bytes), send(bytes)]);
  expect([a.statusCode, b.statusCode]).toEqual([202, 202]);
  // one listing: the same answer, but for its invoice link, which each answer signs when it is
  // given (two signed across a second boundary differ in `exp`): that link names the same invoice
  type Listed = { item_id: string; status: string; invoice_url: string };
  const [x, y] = [a.json() as Listed, b.json() as Listed];
  expect({ ...y, invoice_url: undefined }).toEqual({ ...x, invoice_url: undefined });
  expect(y.invoice_url.split('?')[0]).toBe(x.invoice_url.split('?')[0]);
  const [n] = await t.runtime.deps.sql<{ n: number }[]>`
    select count(*)::int as n from items where archive_key = ${keyOf(bytes)}`;
  expect(n!.n).toBe(1);
  expect(await t.blobFiles()).toEqual([...before, keyOf(bytes)].sort());
});

it('an identical upload whose twin listed the archive after its first look answers that listing', async () => {
  const bytes = zipOf(uniqueProject());
  const send = await signedFee();
  const payments = t.runtime.deps.payments;
  const knownClaim = payments.knownClaim.bind(payments);
  let twin: Awaited<ReturnType<typeof send>> | undefined;
  let looked = false;
  // this request looks for an earlier claim, finds none, and its twin then lists the archive whole
  payments.knownClaim = async (input) => {
    const known = await knownClaim(input);
    if (!looked) {
      looked = true;
      twin = await send(bytes);
      expect(twin.statusCode).toBe(202);
    }
    return known;
  };
  try {
    const res = await send(bytes);
    expect(res.statusCode).toBe(202);
    // the twin's listing (its invoice link signed afresh: its expiry may be a second later)
    const body = res.json() as { item_id: string; status: string; invoice_url: string };
    const first = twin!.json() as typeof body;
    expect({ ...body, invoice_url: undefined }).toEqual({ ...first, invoice_url: undefined });
    expect(body.invoice_url.split('?')[0]).toBe(first.invoice_url.split('?')[0]);
  } finally {
    payments.knownClaim = knownClaim;
  }
});

it('the losing one of two uploads under one signature leaves none of its bytes behind', async () => {
  const before = await t.blobFiles();
  const [one, two] = [zipOf(uniqueProject()), zipOf(uniqueProject())];
  const send = await signedFee();
  const answers = await Promise.all([send(one), send(two)]);
  const codes = answers.map((r) => r.statusCode).sort();
  expect(codes).toEqual([202, 409]);
  const lost = answers.find((r) => r.statusCode === 409)!;
  expect(lost.json()).toMatchObject({ error: 'authorization_already_used' });
  const won = answers[0]!.statusCode === 202 ? one : two;
  // "nothing was stored or charged", as the refusal says: only the listed archive is on disk
  expect(await t.blobFiles()).toEqual([...before, keyOf(won)].sort());
  const rows = await t.runtime.deps.sql<{ archiveKey: string }[]>`
    select archive_key from items where archive_key = any(${[keyOf(one), keyOf(two)]})`;
  expect(rows.map((r) => r.archiveKey)).toEqual([keyOf(won)]);
});

it("a listing's bytes removed by a refused twin's clean-up between its upload and its commit are put back", async () => {
  const bytes = zipOf(uniqueProject());
  const key = keyOf(bytes);
  const storage = t.runtime.deps.storage;
  const put = storage.put.bind(storage);
  // the twin's undo runs once, right after this request stored the bytes, before its listing commits
  let twinUndone = false;
  storage.put = async (k, b, o) => {
    const stored = await put(k, b, o);
    if (k === key && !twinUndone) {
      twinUndone = true;
      await storage.delete(key);
    }
    return stored;
  };
  try {
    const send = await signedFee();
    const res = await send(bytes);
    expect(res.statusCode).toBe(202);
  } finally {
    storage.put = put;
  }
  expect(await storage.stat(key)).toEqual({ size: bytes.length });
});
