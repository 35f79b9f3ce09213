import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MarketplaceError } from '../../src/client/errors.js';
import { purgeDeleted } from '../../src/domain/listings/purge.js';
import { startTestApp, type TestContext } from '../helpers/app.js';
import { createSaleItem } from '../helpers/items.js';
import { ON_POSTGRES } from '../helpers/postgres.js';
import { clientFor, newWallet } from '../helpers/wallets.js';

/**
 * An order names its item without a foreign key (migration 478): the retention purge, the only hard
 * delete of a listing, is serialised against purchases instead. Whatever the interleaving, either
 * the order exists and so does its item, or the purchase is refused with a 4xx and nothing of it is
 * written (no order, no completed payment, no money moved on the dev ledger).
 */
let t: TestContext;
beforeAll(async () => {
  t = await startTestApp({ DELETED_RETENTION_DAYS: '0' });
});
afterAll(() => t?.close());

const sql = () => t.runtime.deps.sql;

/** The seller deletes the listing (long enough ago for the purge) and the purge runs. */
async function deleteAndPurge(itemId: string) {
  await sql()`update items set status = 'deleted', status_reason = 'removed',
                deleted_at = now() - interval '1 day' where id = ${itemId}`;
  return purgeDeleted(t.runtime.deps);
}

async function ordersWithoutItem() {
  const [row] = await sql()<{ n: number }[]>`
    select count(*)::int as n from orders o where not exists (select 1 from items i where i.id = o.item_id)`;
  return row!.n;
}

describe('a purchase and the purge of its item at once', () => {
  it('either the order exists with its item, or the purchase is refused cleanly', async () => {
    const outcomes = { bought: 0, refused: 0 };
    for (let round = 0; round < 24; round++) {
      const item = await createSaleItem(t.runtime.deps, { priceUsdc: 1 });
      const buyer = newWallet();
      const client = clientFor(t.app, buyer);
      // the purge starts a little later each round, so it meets the purchase at every step
      const purchase = client.acquire(item.itemId).then(
        (r) => ({ orderId: r.order.order_id }),
        (e: unknown) => {
          if (e instanceof MarketplaceError && e.status >= 400 && e.status < 500) return null;
          throw e;
        },
      );
      await new Promise((r) => setTimeout(r, round % 8));
      await deleteAndPurge(item.itemId);
      const bought = await purchase;
      // a later pass (the purge again) never takes an item an order names
      await purgeDeleted(t.runtime.deps);
      const [itemRow] = await sql()`select 1 from items where id = ${item.itemId}`;
      const orders = await sql()`select id from orders where item_id = ${item.itemId}`;
      const completed = await sql()`
        select 1 from x402_payments where status = 'completed' and payer = ${buyer.address.toLowerCase()}`;
      if (bought) {
        outcomes.bought++;
        expect(itemRow).toBeDefined();
        expect(orders.map((o) => o.id)).toEqual([bought.orderId]);
      } else {
        outcomes.refused++;
        expect(orders).toHaveLength(0);
        expect(completed).toHaveLength(0);
      }
    }
    expect(outcomes.bought + outcomes.refused).toBe(24);
    expect(await ordersWithoutItem()).toBe(0);
  });

  // a purchase held in flight needs a second connection: the embedded database runs one at a time
  it.runIf(ON_POSTGRES)(
    'a purge waits for a purchase in flight and then keeps the item it sold',
    async () => {
      const item = await createSaleItem(t.runtime.deps, { priceUsdc: 1 });
      const other = await createSaleItem(t.runtime.deps, { priceUsdc: 1 });
      await clientFor(t.app, newWallet()).acquire(other.itemId);
      await sql()`update items set status = 'deleted', status_reason = 'removed',
                    deleted_at = now() - interval '1 day' where id = ${item.itemId}`;
      let purge: Promise<unknown> | undefined;
      await sql().begin(async (tx) => {
        // a purchase of the item whose order is written and not yet committed (its sale check
        // passed before the seller's delete): an order like the other one, naming this item and,
        // as a purchase writes it, the item's seller
        await tx`
          insert into orders (id, payment_id, item_id, buyer_id, seller_id, chain, network, asset, pay_to,
                              payer, amount_micro, transaction)
          select ${randomUUID()}, ${randomUUID()}, ${item.itemId}, buyer_id,
                 (select seller_id from items where id = ${item.itemId}), chain, network,
                 asset, pay_to, payer, amount_micro, transaction
          from orders where item_id = ${other.itemId}`;
        purge = purgeDeleted(t.runtime.deps);
        await new Promise((r) => setTimeout(r, 200));
      });
      await purge;
      // the purge waited for the commit and found the order: the item is there, now hidden
      const [itemRow] = await sql()`select 1 from items where id = ${item.itemId}`;
      expect(itemRow).toBeDefined();
      expect(await ordersWithoutItem()).toBe(0);
      expect((await purgeDeleted(t.runtime.deps)).deleted).toBe(0);
      const [hidden] = await sql()`select purged_at from items where id = ${item.itemId}`;
      expect(hidden!.purgedAt).not.toBeNull();
    },
  );
});
