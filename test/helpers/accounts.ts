import type { LocalAccount } from 'viem';
import { expect } from 'vitest';
import type { TestContext } from './app.js';
import { uniqueProject, zipOf } from './archives.js';
import { listItem, sellerStatus, type SellingContext } from './selling.js';
import { clientFor, promptOf, signPayment } from './wallets.js';

type Method = 'GET' | 'PUT' | 'POST' | 'DELETE';

/**
 * An identity-scoped call with an optional JSON body: the unsigned request (validation answers
 * first, then the zero-value 402), then the same request signed from that route's own prompt.
 */
export async function callAs(
  t: TestContext,
  wallet: LocalAccount,
  method: Method,
  url: string,
  body?: unknown,
) {
  const payload =
    body === undefined
      ? {}
      : { payload: JSON.stringify(body), headers: { 'content-type': 'application/json' } };
  const first = await t.app.inject({ method, url, ...payload });
  if (first.statusCode !== 402) return first;
  const prompt = promptOf(first);
  for (const a of prompt.accepts) expect(a.amount).toBe('0');
  const { header } = await signPayment(wallet, prompt, prompt.accepts[0]!);
  return t.app.inject({
    method,
    url,
    ...payload,
    headers: { ...payload.headers, 'payment-signature': header },
  });
}

/** A listing made through the API (fee paid, scanned by the worker), asserted active. */
export async function activeListing(
  t: SellingContext,
  seller: LocalAccount,
  metadata: Record<string, unknown> = {},
): Promise<string> {
  const itemId = await listItem(t, seller, {
    bytes: zipOf(uniqueProject()),
    metadata: {
      title: 'Todo REST API',
      description: 'A small REST API for todos with tests.',
      tech_stack: 'TypeScript, Node.js',
      prices: { USDC: 5 },
      ...metadata,
    },
  });
  await t.work();
  expect(await sellerStatus(t, seller, itemId)).toEqual({ status: 'active', reason: 'approved' });
  return itemId;
}

/** A real purchase: prompt, signed completion through the typed client (paid x402). */
export async function buy(
  t: TestContext,
  buyer: LocalAccount,
  itemId: string,
  chain?: 'base' | 'polygon',
) {
  const { order } = await clientFor(t.app, buyer).acquire(itemId, chain ? { chain } : {});
  return order;
}
