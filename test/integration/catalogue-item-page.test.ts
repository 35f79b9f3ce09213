import { x402Client } from '@x402/core/client';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { wrapFetchWithSIWx } from '@x402/extensions/sign-in-with-x';
import { wrapFetchWithPayment } from '@x402/fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startListeningTestApp,
  startTestApp,
  type ListeningTestContext,
  type TestContext,
} from '../helpers/app.js';
import { createSaleItem } from '../helpers/items.js';
import { registerAgent } from '../helpers/revision-a.js';
import { newWallet } from '../helpers/wallets.js';

/**
 * The catalogue's item page tells a visitor how an agent buys the item in this deployment's
 * contract revision: Revision B's wallet-only acquire, Revision A's API key and `POST /api/v1/buy`.
 * And what the Revision A guide says of sign-in on its keyless acquire holds.
 */

const page = async (t: TestContext, itemId: string) => {
  const res = await t.app.inject({ url: `/items/${itemId}`, headers: { accept: 'text/html' } });
  expect(res.statusCode).toBe(200);
  return res.body;
};

describe('Revision B item page', () => {
  let t: TestContext;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('shows the wallet-only acquire steps, no key', async () => {
    const item = await createSaleItem(t.runtime.deps);
    const html = await page(t, item.itemId);
    expect(html).toContain(`/api/v1/items/${item.itemId}/acquire`);
    expect(html).toContain('PAYMENT-SIGNATURE');
    expect(html).not.toContain('X-API-KEY');
    expect(html).not.toContain('/api/v1/buy');
  });
});

describe('Revision A', () => {
  let t: ListeningTestContext;
  beforeAll(async () => {
    t = await startListeningTestApp({ CONTRACT_REVISION: 'A' });
  });
  afterAll(() => t.close());

  it('the item page shows the API-key steps: register, then POST /api/v1/buy with the key', async () => {
    const item = await createSaleItem(t.runtime.deps);
    const html = await page(t, item.itemId);
    const steps = html.slice(html.indexOf('How an agent buys it'));
    expect(steps).toContain(`${t.base}/api/v1/auth/challenge`);
    expect(steps).toContain(`${t.base}/api/v1/register`);
    expect(steps).toContain(`POST ${t.base}/api/v1/buy`);
    expect(steps).toContain('X-API-KEY');
    expect(steps).toContain(`"item_id": "${item.itemId}"`);
    expect(steps).toContain('PAYMENT-SIGNATURE');
  });

  it('as its guide says, a wallet that bought through the keyless acquire signs in and gets its order again', async () => {
    const guide = (await t.app.inject('/agent-usage')).body;
    expect(guide).toContain('`SIGN-IN-WITH-X` header (once)');
    // payable: the seller linked a wallet on base
    const seller = await registerAgent(t.app);
    const item = await createSaleItem(t.runtime.deps, {
      sellerAddress: seller.wallet.address,
      priceUsdc: 0.5,
    });
    const url = `${t.base}/api/v1/items/${item.itemId}/acquire`;
    const body = (chain?: string) => ({
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        ...(chain && { chain }),
        policy_accepted: true,
        license_accepted: true,
      }),
    });
    const buyer = newWallet();
    const client = new x402Client();
    registerExactEvmScheme(client, { signer: buyer });
    const bought = await wrapFetchWithPayment(fetch, client)(url, body('base'));
    expect(bought.status).toBe(200);
    const { order_id } = (await bought.json()) as { order_id: string };
    const again = await wrapFetchWithSIWx(fetch, buyer)(url, body());
    expect(again.status).toBe(200);
    expect(again.headers.get('payment-response')).toBeNull();
    expect(((await again.json()) as { order_id: string }).order_id).toBe(order_id);
  });
});
