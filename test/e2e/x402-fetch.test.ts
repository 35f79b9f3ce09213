import { createHash } from 'node:crypto';
import { x402Client } from '@x402/core/client';
import { decodePaymentResponseHeader } from '@x402/core/http';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { wrapFetchWithPayment } from '@x402/fetch';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startListeningTestApp, type ListeningTestContext } from '../helpers/app.js';
import { createSaleItem } from '../helpers/items.js';

/**
 * Interop: the official x402 client (@x402/fetch + @x402/evm exact scheme, viem private-key
 * account), unmodified, buys an item from the running service over a real socket, then fetches
 * its order with a zero-value identity payment and downloads the archive.
 */
let t: ListeningTestContext;
let base: string;

beforeAll(async () => {
  t = await startListeningTestApp();
  base = t.base;
});
afterAll(() => t?.close());

it('@x402/fetch buys, reads its order with an identity proof, and downloads the archive', async () => {
  const item = await createSaleItem(t.runtime.deps, { priceUsdc: 0.75 });
  const account = privateKeyToAccount(generatePrivateKey());
  const client = new x402Client();
  registerExactEvmScheme(client, { signer: account });
  const fetchWithPay = wrapFetchWithPayment(fetch, client);

  // Same body on the unpaid and the paid call, as wallet tools send it.
  const res = await fetchWithPay(`${base}/api/v1/items/${item.itemId}/acquire`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ policy_accepted: true, license_accepted: true }),
  });
  expect(res.status).toBe(200);
  const receipt = decodePaymentResponseHeader(res.headers.get('PAYMENT-RESPONSE')!);
  expect(receipt).toMatchObject({
    success: true,
    network: 'eip155:8453',
    payer: account.address.toLowerCase(),
  });
  const order = (await res.json()) as {
    order_id: string;
    download_url: string;
    invoice_url: string;
    expires_in: string;
  };
  expect(order.expires_in).toBe('15 minutes');

  const head = await fetch(order.download_url, { method: 'HEAD' });
  expect(head.status).toBe(200);
  const archive = await fetch(order.download_url);
  const bytes = Buffer.from(await archive.arrayBuffer());
  expect(createHash('sha256').update(bytes).digest('hex')).toBe(item.sha256);
  expect(archive.headers.get('x-content-sha256')).toBe(item.sha256);

  const links = await fetchWithPay(`${base}/api/v1/orders/${order.order_id}`);
  expect(links.status).toBe(200);
  const fresh = (await links.json()) as { download_url: string };
  expect((await fetch(fresh.download_url)).status).toBe(200);

  const n = (
    await t.runtime.deps.sql<
      { n: number }[]
    >`select count(*)::int as n from orders where item_id = ${item.itemId}`
  )[0]!.n;
  expect(n).toBe(1);
});
