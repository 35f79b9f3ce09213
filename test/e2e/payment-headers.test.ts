import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { x402Client } from '@x402/core/client';
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestContext } from '../helpers/app.js';
import { createSaleItem } from '../helpers/items.js';

/**
 * Over a real socket (Node enforces header limits there, not under inject): clients that echo the
 * whole prompt back in PAYMENT-SIGNATURE send several KB; those must get through, and an absurd
 * header is refused before any work with a clear code.
 */
let t: TestContext;
let base: string;

beforeAll(async () => {
  t = await startTestApp({ ARCHIVES_DIR: mkdtempSync(path.join(tmpdir(), 'hdr-')) });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const addr = t.app.server.address() as { port: number };
  base = `http://127.0.0.1:${addr.port}`;
});
afterAll(() => t?.close());

async function signedAcquire(padding: number) {
  const item = await createSaleItem(t.runtime.deps, { priceUsdc: 0.3 });
  const url = `${base}/api/v1/items/${item.itemId}/acquire`;
  const prompt = await fetch(url, { method: 'POST' });
  expect(prompt.status).toBe(402);
  const required = decodePaymentRequiredHeader(prompt.headers.get('PAYMENT-REQUIRED')!);
  const client = new x402Client();
  registerExactEvmScheme(client, { signer: privateKeyToAccount(generatePrivateKey()) });
  const payload = await client.createPaymentPayload(required);
  // echo the resource and every extension back, padded the way verbose clients grow them
  const echoed = {
    ...payload,
    extensions: { ...required.extensions, client_notes: { text: 'x'.repeat(padding) } },
  };
  const header = encodePaymentSignatureHeader(echoed);
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'PAYMENT-SIGNATURE': header },
    body: JSON.stringify({ policy_accepted: true, license_accepted: true }),
  });
  return { res, headerBytes: header.length };
}

it('accepts a PAYMENT-SIGNATURE of ~20 KB that echoes the prompt (over Node’s default 16 KB)', async () => {
  const { res, headerBytes } = await signedAcquire(14_000);
  expect(headerBytes).toBeGreaterThan(17_000);
  expect(res.status).toBe(200);
  expect(((await res.json()) as { order_id: string }).order_id).toMatch(/^[0-9a-f-]{36}$/);
});

it('refuses an absurd PAYMENT-SIGNATURE with 431 payment_header_too_large, charging nothing', async () => {
  const count = async () =>
    (await t.runtime.deps.sql<{ n: number }[]>`select count(*) as n from orders`)[0]!.n;
  const before = await count();
  const { res, headerBytes } = await signedAcquire(40_000);
  expect(headerBytes).toBeGreaterThan(32 * 1024);
  expect(res.status).toBe(431);
  expect(await res.json()).toMatchObject({ error: 'payment_header_too_large' });
  expect(await count()).toBe(before);
});
