import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestContext } from '../helpers/app.js';
import { startFakeFacilitator, type FakeFacilitator } from '../helpers/fake-facilitator.js';
import { startFakeRpc, type FakeRpc } from '../helpers/fake-rpc.js';
import { createSaleItem } from '../helpers/items.js';
import { newWallet, promptOf, signPayment } from '../helpers/wallets.js';

/**
 * A forged signature costs the chain nothing: with a remote facilitator and RPC URLs set, the
 * signer is recovered first, and only an address that can be a contract is asked about over RPC,
 * each call bounded by a short timeout and a per-chain concurrency limit. Here the RPC node
 * receives requests and never answers (black-holed); call counts are what is asserted, and a
 * generous time bound only says "does not hang for the ~41 s of four 10 s attempts".
 */
let t: TestContext;
let fake: FakeFacilitator;
let rpc: FakeRpc;
const CONCURRENCY = 4;
beforeAll(async () => {
  fake = await startFakeFacilitator();
  rpc = await startFakeRpc();
  t = await startTestApp({
    ARCHIVES_DIR: mkdtempSync(path.join(tmpdir(), 'forged-')),
    FACILITATOR_URL: fake.url,
    RPC_URL_BASE: rpc.url,
    RPC_URL_POLYGON: rpc.url,
    // short, but long enough that a loaded machine still delivers the request before it fires
    RPC_SIGNATURE_TIMEOUT_MS: '1000',
    RPC_SIGNATURE_CONCURRENCY: String(CONCURRENCY),
  });
});
afterAll(async () => {
  await t?.close();
  await fake?.close();
  await rpc?.close();
});
beforeEach(() => {
  rpc.blackhole = false;
});

const acquireUrl = (id: string) => `/api/v1/items/${id}/acquire`;
const completion = { policy_accepted: true, license_accepted: true };

/** A purchase signed by `signer` in the name of `victim` (a forgery unless they are the same). */
async function forgedPurchase(victim: ReturnType<typeof newWallet>, signer = newWallet()) {
  const item = await createSaleItem(t.runtime.deps, { priceUsdc: 1 });
  const prompt = promptOf(await t.app.inject({ method: 'POST', url: acquireUrl(item.itemId) }));
  const { header } = await signPayment(victim, prompt, prompt.accepts[0]!, { signer });
  return () =>
    t.app.inject({
      method: 'POST',
      url: acquireUrl(item.itemId),
      headers: { 'payment-signature': header },
      payload: completion,
    });
}

/** An identity proof for `url` signed by `signer` in the name of `victim`. */
async function forgedIdentity(
  url: string,
  victim: ReturnType<typeof newWallet>,
  signer = newWallet(),
) {
  const prompt = promptOf(await t.app.inject(url));
  const { header } = await signPayment(victim, prompt, prompt.accepts[0]!, { signer });
  return () => t.app.inject({ url, headers: { 'payment-signature': header } });
}

async function timed<T>(f: () => Promise<T>): Promise<{ res: T; ms: number }> {
  const start = performance.now();
  const res = await f();
  return { res, ms: performance.now() - start };
}

describe('forged payments and identity proofs against a black-holed RPC', () => {
  it('a forged proof in the name of a wallet that signed here before: 402 at once, no RPC call', async () => {
    const victim = newWallet();
    // the victim's own, genuine identity proof (it has no account yet: 404 after verification)
    const genuine = await (await forgedIdentity('/api/v1/agent/username', victim, victim))();
    expect(genuine.statusCode).toBe(404);

    rpc.blackhole = true;
    const before = rpc.received;
    const pay = await forgedPurchase(victim);
    const prove = await forgedIdentity('/api/v1/agent/username', victim);
    for (const send of [pay, prove]) {
      const { res, ms } = await timed(send);
      expect(res.statusCode).toBe(402);
      expect(res.json()).toMatchObject({
        error: 'payment_verification_failed',
        reason: 'invalid_exact_evm_signature',
      });
      expect(ms).toBeLessThan(2_000);
    }
    expect(rpc.received - before).toBe(0);
    expect(fake.requests).toHaveLength(0);
  });

  it('a forged proof in the name of an unseen address: one bounded code lookup, then none', async () => {
    const victim = newWallet();
    rpc.blackhole = true;
    const before = rpc.received;
    const first = await timed(await forgedPurchase(victim));
    expect(first.res.statusCode).toBe(402);
    // the chain did not answer: no verdict on the signature, and nothing settled
    expect(first.res.json()).toMatchObject({
      error: 'payment_verification_failed',
      reason: 'smart_account_check_unavailable',
    });
    expect(first.ms).toBeLessThan(5_000);
    expect(rpc.received - before).toBe(1);
    // the unanswered lookup is remembered for a while: forgeries for it cost nothing more
    for (const send of [
      await forgedPurchase(victim),
      await forgedIdentity('/api/v1/agent/username', victim),
    ]) {
      const { res, ms } = await timed(send);
      expect(res.statusCode).toBe(402);
      expect(ms).toBeLessThan(2_000);
    }
    expect(rpc.received - before).toBe(1);
  });

  it('with the RPC answering, an address without code is refused after one lookup, no eth_call', async () => {
    const victim = newWallet();
    const before = { received: rpc.received, calls: rpc.calls };
    const send = await forgedPurchase(victim);
    const res = await send();
    expect(res.statusCode).toBe(402);
    expect(res.json()).toMatchObject({ reason: 'invalid_exact_evm_signature' });
    expect(rpc.received - before.received).toBe(1); // eth_getCode
    expect(rpc.calls - before.calls).toBe(0); // no EIP-1271 / ERC-6492 eth_call
    expect((await send()).statusCode).toBe(402);
    expect(rpc.received - before.received).toBe(1);
  });

  it(`a flood of forgeries for new addresses holds at most ${CONCURRENCY} RPC calls in flight`, async () => {
    rpc.blackhole = true;
    const before = rpc.received;
    const sends = await Promise.all(Array.from({ length: 40 }, () => forgedPurchase(newWallet())));
    const { res, ms } = await timed(() => Promise.all(sends.map((s) => s())));
    for (const r of res) expect(r.statusCode).toBe(402);
    expect(rpc.received - before).toBeLessThanOrEqual(CONCURRENCY);
    expect(ms).toBeLessThan(5_000);
    expect(fake.requests).toHaveLength(0);
  });
});
