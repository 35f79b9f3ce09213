import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { x402Client } from '@x402/core/client';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import {
  createSIWxPayload,
  encodeSIWxHeader,
  wrapFetchWithSIWx,
  type SIWxExtensionInfo,
} from '@x402/extensions/sign-in-with-x';
import { wrapFetchWithPayment } from '@x402/fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startListeningTestApp, type ListeningTestContext } from '../helpers/app.js';
import { setSalesChains } from '../../src/domain/accounts/account.js';
import { deleteListing } from '../../src/domain/listings/inventory.js';
import { purgeDeleted } from '../../src/domain/listings/purge.js';
import { createSaleItem, type SaleItem } from '../helpers/items.js';
import { newWallet } from '../helpers/wallets.js';

/**
 * "Already paid? Deliver again" (issue 27): `POST .../acquire` with a SIGN-IN-WITH-X proof from a
 * wallet that bought the item answers its order again, free; the official clients (@x402/fetch
 * and @x402/extensions' wrapFetchWithSIWx), unmodified.
 */
let t: ListeningTestContext;
beforeAll(async () => {
  t = await startListeningTestApp();
});
afterAll(() => t?.close());

const legal = {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ policy_accepted: true, license_accepted: true }),
};

/** fetch that records the SIGN-IN-WITH-X header it sends. */
function recording() {
  const sent: string[] = [];
  const f: typeof fetch = async (input, init) => {
    const h = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
    const v = h.get('sign-in-with-x');
    if (v) sent.push(v);
    return fetch(input, init);
  };
  return { f, sent };
}

/** Orders of the item, and settled payments of the whole service. */
const count = async (table: 'orders' | 'x402_payments', itemId: string) => {
  const sql = t.runtime.deps.sql;
  const where = table === 'orders' ? sql`item_id = ${itemId}::uuid` : sql`true`;
  return (
    await sql<{ n: number }[]>`select count(*)::int as n from ${sql(table)} where ${where}`
  )[0]!.n;
};

describe('sign-in-with-x on acquire', () => {
  it('the acquire 402 advertises the sign-in-with-x challenge for its own URL', async () => {
    const item = await createSaleItem(t.runtime.deps);
    const url = `${t.base}/api/v1/items/${item.itemId}/acquire`;
    const res = await fetch(url, { method: 'POST' });
    expect(res.status).toBe(402);
    const body = (await res.json()) as {
      extensions: Record<string, { info: Record<string, string> }>;
    };
    expect(body.extensions['sign-in-with-x']!.info).toMatchObject({
      domain: new URL(t.base).host,
      uri: url,
    });
    expect(body.extensions.bazaar).toBeDefined();
  });

  it('a buyer signs in and gets the same order again, no new charge; others and replays get 402', async () => {
    const item = await createSaleItem(t.runtime.deps, { priceUsdc: 0.5 });
    const url = `${t.base}/api/v1/items/${item.itemId}/acquire`;
    const buyer = newWallet();
    const client = new x402Client();
    registerExactEvmScheme(client, { signer: buyer });
    const bought = await wrapFetchWithPayment(fetch, client)(url, legal);
    expect(bought.status).toBe(200);
    const order = (await bought.json()) as { order_id: string };
    const payments = await count('x402_payments', item.itemId);

    const { f, sent } = recording();
    const again = await wrapFetchWithSIWx(f, buyer)(url, legal);
    expect(again.status).toBe(200);
    expect(again.headers.get('payment-response')).toBeNull();
    const redelivered = (await again.json()) as { order_id: string; download_url: string };
    expect(redelivered.order_id).toBe(order.order_id);
    expect((await fetch(redelivered.download_url)).status).toBe(200);
    expect(sent).toHaveLength(1);
    expect(await count('orders', item.itemId)).toBe(1);
    expect(await count('x402_payments', item.itemId)).toBe(payments);

    // the same proof again: its nonce is spent
    const replay = await fetch(url, {
      ...legal,
      headers: { ...legal.headers, 'SIGN-IN-WITH-X': sent[0]! },
    });
    expect(replay.status).toBe(402);
    expect(await replay.json()).toMatchObject({ reason: 'invalid_siwx_nonce_already_used' });

    // a wallet that never bought it: the plain prompt, nothing about the item's buyers
    const stranger = recording();
    const other = await wrapFetchWithSIWx(stranger.f, newWallet())(url, legal);
    expect(other.status).toBe(402);
    expect(stranger.sent).toHaveLength(1);
    const prompt = (await other.json()) as Record<string, unknown>;
    expect(prompt.error).toBe('payment_required');
    expect(prompt.reason).toBeUndefined();
    expect(prompt.accepts).toBeDefined();
    expect(await count('orders', item.itemId)).toBe(1);
  });

  it('with both a proof and a payment, the payment is processed: a second order', async () => {
    const item = await createSaleItem(t.runtime.deps, { priceUsdc: 0.5 });
    const url = `${t.base}/api/v1/items/${item.itemId}/acquire`;
    const buyer = newWallet();
    const client = new x402Client();
    registerExactEvmScheme(client, { signer: buyer });
    const first = await wrapFetchWithPayment(fetch, client)(url, legal);
    const { order_id } = (await first.json()) as { order_id: string };

    // a valid, unused proof of the buyer (the official client signs it; it is not sent)
    let proof = '';
    await wrapFetchWithSIWx(async (input, init) => {
      const v = new Headers(
        init?.headers ?? (input instanceof Request ? input.headers : undefined),
      ).get('sign-in-with-x');
      if (!v) return fetch(input, init);
      proof = v;
      return new Response(null, { status: 204 });
    }, buyer)(url, legal);
    expect(proof).not.toBe('');

    // the paid retry carries it too
    let attached = 0;
    const both: typeof fetch = (input, init) => {
      const h = new Headers(
        init?.headers ?? (input instanceof Request ? input.headers : undefined),
      );
      if (h.get('payment-signature')) {
        h.set('sign-in-with-x', proof);
        attached++;
      }
      return input instanceof Request
        ? fetch(new Request(input, { headers: h }))
        : fetch(input, { ...init, headers: h });
    };
    const second = await wrapFetchWithPayment(both, client)(url, legal);
    expect(second.status).toBe(200);
    expect(second.headers.get('payment-response')).toBeTruthy();
    expect(attached).toBe(1);
    const latest = ((await second.json()) as { order_id: string }).order_id;
    expect(latest).not.toBe(order_id);
    expect(await count('orders', item.itemId)).toBe(2);

    // the proof was not spent by the paid request: alone, it re-delivers the latest order
    const alone = await fetch(url, {
      ...legal,
      headers: { ...legal.headers, 'SIGN-IN-WITH-X': proof },
    });
    expect(alone.status).toBe(200);
    expect(((await alone.json()) as { order_id: string }).order_id).toBe(latest);
  });

  it('a forged proof gets the prompt with the reason', async () => {
    const item = await createSaleItem(t.runtime.deps);
    const res = await fetch(`${t.base}/api/v1/items/${item.itemId}/acquire`, {
      ...legal,
      headers: { ...legal.headers, 'SIGN-IN-WITH-X': Buffer.from('{"nope":1}').toString('base64') },
    });
    expect(res.status).toBe(402);
    expect(res.headers.get('payment-required')).toBeTruthy();
    expect(await res.json()).toMatchObject({ reason: 'invalid_siwx_payload' });
  });
});

describe("the seller's wallet signing in on its own listing", () => {
  it('is refused as self_purchase_forbidden before any payment is asked of it', async () => {
    // found by the s47 sweep: the seller's proof got the plain 402 prompt (pay for your own listing)
    const seller = newWallet();
    const item = await createSaleItem(t.runtime.deps, {
      sellerAddress: seller.address.toLowerCase(),
    });
    const url = `${t.base}/api/v1/items/${item.itemId}/acquire`;
    const res = await wrapFetchWithSIWx(fetch, seller)(url, legal);
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ error: 'self_purchase_forbidden' });
    expect(res.headers.get('payment-required')).toBeNull();
    expect(await count('orders', item.itemId)).toBe(0);
  });
});

/**
 * "Already paid? Deliver again" once the listing can no longer be paid (s40): a buyer who paid
 * gets the same order again (the bytes are kept for buyers), whatever made the listing unpayable.
 * Its 404/409 (no payment prompt) carries the sign-in challenge in its body, `extensions` as a 402
 * has it, which the official SIWX helpers sign as wrapFetchWithSIWx signs a 402's.
 */
describe('sign-in-with-x on a listing that can no longer be paid', () => {
  const deps = () => t.runtime.deps;
  const ways: Array<[string, number, string, (item: SaleItem) => Promise<unknown>]> = [
    [
      'the seller deleted it',
      404,
      'item_not_found',
      (i) => deleteListing(deps(), i.seller.id, i.itemId),
    ],
    [
      'it was deleted and hidden by the purge (kept for its buyers)',
      404,
      'item_not_found',
      async (i) => {
        await deleteListing(deps(), i.seller.id, i.itemId);
        await deps()
          .sql`update items set deleted_at = now() - interval '400 days' where id = ${i.itemId}`;
        await purgeDeleted(deps());
        const [row] = await deps().sql<{ purged: boolean }[]>`
          select purged_at is not null as purged from items where id = ${i.itemId}`;
        expect(row!.purged).toBe(true);
      },
    ],
    [
      'the seller accepts sales on no chain any more',
      409,
      'seller_wallet_missing',
      (i) => setSalesChains(deps(), i.seller, []),
    ],
    [
      "the seller's payout addresses are gone",
      409,
      'seller_wallet_missing',
      async (i) => {
        await deps().sql`delete from payout_addresses where agent_id = ${i.seller.id}`;
        deps().saleItems?.invalidateSeller(i.seller.id);
      },
    ],
  ];

  /** Buys the item with the official x402 client; returns the buyer and the order id. */
  async function bought(item: SaleItem) {
    const url = `${t.base}/api/v1/items/${item.itemId}/acquire`;
    const buyer = newWallet();
    const client = new x402Client();
    registerExactEvmScheme(client, { signer: buyer });
    const res = await wrapFetchWithPayment(fetch, client)(url, legal);
    expect(res.status).toBe(200);
    return { url, buyer, orderId: ((await res.json()) as { order_id: string }).order_id };
  }

  /** Signs the sign-in challenge a 404/409 body carries, as the official client signs a 402's. */
  async function signChallenge(
    body: { extensions?: Record<string, unknown> },
    signer: ReturnType<typeof newWallet>,
    url: string,
  ) {
    const ext = body.extensions?.['sign-in-with-x'] as
      | { info: SIWxExtensionInfo; supportedChains: Array<{ chainId: string; type: 'eip191' }> }
      | undefined;
    expect(ext, 'the answer carries the sign-in challenge').toBeDefined();
    const chain = ext!.supportedChains[0]!;
    return encodeSIWxHeader(
      await createSIWxPayload(
        { ...ext!.info, chainId: chain.chainId, type: chain.type },
        signer,
        url,
      ),
    );
  }

  it('the documented example (docs/discovery-and-siwx.md), run as written, gets the order again', async () => {
    // s47 found the docs naming createSIWxPayload without its third argument (the request URL)
    const doc = readFileSync(path.join(process.cwd(), 'docs/discovery-and-siwx.md'), 'utf8');
    const blocks = [...doc.matchAll(/^ *```js\n([\s\S]*?)^ *```$/gm)].map((m) => m[1]!);
    const example = blocks.find((b) => b.includes('createSIWxPayload'));
    expect(example, 'the docs carry the example').toBeDefined();
    // written where the example's bare import resolves as in a buyer's project
    const dir = path.join(process.cwd(), 'node_modules/.cache');
    mkdirSync(dir, { recursive: true });
    const folder = mkdtempSync(path.join(dir, 'docs-example-'));
    const file = path.join(folder, 'deliver-again.mjs');
    writeFileSync(file, example!);
    const { deliverAgain } = (await import(/* @vite-ignore */ pathToFileURL(file).href).finally(
      () => rmSync(folder, { recursive: true, force: true }),
    )) as {
      deliverAgain: (url: string, account: unknown) => Promise<{ order_id: string }>;
    };
    const item = await createSaleItem(deps(), { priceUsdc: 0.5 });
    const { url, buyer, orderId } = await bought(item);
    await deleteListing(deps(), item.seller.id, item.itemId);
    const again = await deliverAgain(url, buyer);
    expect(again.order_id).toBe(orderId);
  });

  for (const [way, status, code, unpayable] of ways) {
    it(`${way}: the buyer's proof answers the same order; anyone else gets ${status} ${code}`, async () => {
      const item = await createSaleItem(deps(), { priceUsdc: 0.5 });
      const { url, buyer, orderId } = await bought(item);
      await unpayable(item);
      const payments = await count('x402_payments', item.itemId);

      const plain = await fetch(url, legal);
      expect(plain.status).toBe(status);
      // not a payment prompt: nothing to pay here
      expect(plain.headers.get('payment-required')).toBeNull();
      const body = (await plain.json()) as { extensions?: Record<string, unknown> };
      expect(body).toMatchObject({ error: code });
      const again = await fetch(url, {
        ...legal,
        headers: { ...legal.headers, 'SIGN-IN-WITH-X': await signChallenge(body, buyer, url) },
      });
      expect(again.status).toBe(200);
      expect(again.headers.get('payment-response')).toBeNull();
      const redelivered = (await again.json()) as { order_id: string; download_url: string };
      expect(redelivered.order_id).toBe(orderId);
      const download = await fetch(redelivered.download_url);
      expect(download.status).toBe(200);
      expect(Buffer.from(await download.arrayBuffer()).equals(item.bytes)).toBe(true);
      expect(await count('x402_payments', item.itemId)).toBe(payments);

      // a wallet that never bought it: the listing's own answer, nothing about its buyers
      const other = (await (await fetch(url, legal)).json()) as {
        extensions?: Record<string, unknown>;
      };
      const stranger = await fetch(url, {
        ...legal,
        headers: {
          ...legal.headers,
          'SIGN-IN-WITH-X': await signChallenge(other, newWallet(), url),
        },
      });
      expect(stranger.status).toBe(status);
      expect(await stranger.json()).toMatchObject({ error: code });
    });
  }

  it('a re-priced listing still re-delivers through the official client', async () => {
    const item = await createSaleItem(deps(), { priceUsdc: 0.5 });
    const { url, buyer, orderId } = await bought(item);
    await deps().sql`update items set price_micro = 900000 where id = ${item.itemId}`;
    deps().saleItems?.invalidate(item.itemId);
    const again = await wrapFetchWithSIWx(fetch, buyer)(url, legal);
    expect(again.status).toBe(200);
    expect(((await again.json()) as { order_id: string }).order_id).toBe(orderId);
  });
});
