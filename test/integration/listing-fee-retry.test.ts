import { generatePaymentId } from '@x402/extensions/payment-identifier';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { uniqueProject, zipOf } from '../helpers/archives.js';
import type { FakeFacilitator } from '../helpers/fake-facilitator.js';
import { idPayer } from '../helpers/payment-id.js';
import { at, startRemoteRail, validBeforeOf, type RemoteRail } from '../helpers/remote-rail.js';
import { listItem, uploadRequest, type SellingContext } from '../helpers/selling.js';
import { newWallet, promptOf } from '../helpers/wallets.js';

// A listing fee whose settlement was left pending, retried with the same payment id after its
// transaction was dropped and its window closed: the retry releases the dropped claim and pays
// afresh, so it must pass the listing's own checks first (a duplicate archive, the listing cap),
// as any new fee does, before money moves. (Found by review: a pending first payment used to let
// the retry skip them.)
let rail: RemoteRail;
let t: SellingContext;
let fake: FakeFacilitator;
beforeAll(async () => {
  rail = await startRemoteRail({ RECONCILE_STALE_SECONDS: '3600' });
  ({ t, fake } = rail);
});
afterAll(() => rail?.close());
beforeEach(() => {
  fake.mode = 'ok';
});

describe('a listing fee retried after its pending payment was dropped', () => {
  it('an archive another seller listed meanwhile: 409 duplicate_code, and no fee is charged', async () => {
    const bytes = zipOf(uniqueProject());
    const req = uploadRequest({ bytes });
    const prompt = promptOf(await t.app.inject({ method: 'POST', url: '/api/v1/items', ...req }));
    const seller = idPayer(newWallet());
    const id = generatePaymentId();
    const signed = await seller.sign(prompt, id);
    const send = (header: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/v1/items',
        payload: req.payload,
        headers: { ...req.headers, 'payment-signature': header },
      });
    fake.mode = 'settle_pending';
    const first = await send(signed.header);
    expect(first.statusCode).toBe(409);
    expect(first.json()).toMatchObject({ error: 'payment_settlement_pending' });
    fake.mode = 'ok';
    // another seller lists the very same archive while this fee is pending
    await listItem(t, newWallet(), { bytes });
    await t.runtime.deps.sql`
      update x402_payments set updated_at = now() - interval '2 hours' where nonce = ${signed.nonce}`;
    const settles = () => fake.requests.filter((r) => r.path === '/settle').length;
    const grace = t.runtime.deps.config.X402_CHAIN_CLOCK_GRACE_SECONDS;
    await at(validBeforeOf(signed.payload) + grace + 60, async () => {
      const before = settles();
      const res = await send((await seller.sign(prompt, id)).header);
      expect(res.statusCode).toBe(409);
      expect(res.json()).toMatchObject({ error: 'duplicate_code' });
      expect(settles()).toBe(before);
    });
    const [charged] = await t.runtime.deps.sql<{ n: number }[]>`
      select count(*)::int as n from x402_payments
      where lower(payer) = ${seller.address.toLowerCase()} and status in ('settled', 'completed')`;
    expect(charged!.n).toBe(0);
  });
});
