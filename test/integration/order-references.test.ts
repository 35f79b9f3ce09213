import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/index.js';
import { startTestApp, type TestContext } from '../helpers/app.js';
import { createSaleItem } from '../helpers/items.js';
import { ON_POSTGRES } from '../helpers/postgres.js';
import { clientFor, newWallet } from '../helpers/wallets.js';

/**
 * An order's item and seller are one foreign key on the pair (migration 476), checked once per
 * purchase instead of twice: the order's item exists and its seller is that item's seller; the
 * seller's account exists through the item's own key. These are the guarantees the two keys gave
 * (and one they did not: a seller other than the item's), held on both tiers.
 */
let t: TestContext;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.close());

const sql = () => t.runtime.deps.sql;

async function sold() {
  const item = await createSaleItem(t.runtime.deps, { priceUsdc: 1 });
  const { order } = await clientFor(t.app, newWallet()).acquire(item.itemId);
  const [row] = await sql()<{ itemId: string; sellerId: string; buyerId: string }[]>`
    select item_id, seller_id, buyer_id from orders where id = ${order.order_id}`;
  return row!;
}

/** Another order like a real one, naming `itemId` and `sellerId` (the code of its refusal, if any). */
async function insertOrder(itemId: string, sellerId: string, db: Db = sql()) {
  try {
    await db`
      insert into orders (id, payment_id, item_id, buyer_id, seller_id, chain, network, asset, pay_to,
                          payer, amount_micro, transaction)
      select ${randomUUID()}, ${randomUUID()}, ${itemId}, buyer_id, ${sellerId}, chain, network, asset,
             pay_to, payer, amount_micro, transaction
      from orders limit 1`;
    return 'inserted';
  } catch (e) {
    return (e as { code?: string }).code;
  }
}

describe("an order's item and seller", () => {
  it('a purchase writes its order, naming the item and its seller', async () => {
    const o = await sold();
    const [item] = await sql()<{ sellerId: string }[]>`
      select seller_id from items where id = ${o.itemId}`;
    expect(o.sellerId).toBe(item!.sellerId);
  });

  it('an order naming another seller than its item has is refused', async () => {
    const o = await sold();
    // the buyer's account exists: the seller key alone accepted it
    expect(await insertOrder(o.itemId, o.buyerId)).toBe('23503');
    expect(await insertOrder(o.itemId, o.sellerId)).toBe('inserted');
  });

  it('an order naming an item that does not exist is refused', async () => {
    const o = await sold();
    expect(await insertOrder(randomUUID(), o.sellerId)).toBe('23503');
  });

  it('neither a sold item nor its seller can be deleted', async () => {
    const o = await sold();
    await sql()`update items set status = 'deleted', status_reason = 'removed',
                  deleted_at = now() - interval '400 days' where id = ${o.itemId}`;
    await expect(sql()`delete from items where id = ${o.itemId}`).rejects.toMatchObject({
      code: '23503',
    });
    await expect(sql()`delete from agents where id = ${o.sellerId}`).rejects.toMatchObject({
      code: '23503',
    });
  });

  // a second connection only exists on a server: the embedded database runs one statement at a time
  it.runIf(ON_POSTGRES)(
    'an order being written holds its item against a deletion until it commits',
    async () => {
      const o = await sold();
      await sql().begin(async (tx) => {
        expect(await insertOrder(o.itemId, o.sellerId, tx)).toBe('inserted');
        // a delete takes this lock on the row: it cannot have it while the order is uncommitted
        await expect(
          sql()`select 1 from items where id = ${o.itemId} for update nowait`,
        ).rejects.toMatchObject({ code: '55P03' });
        // the seller's account row is not locked by the order: the item's key holds it
        await expect(
          sql()`select 1 from agents where id = ${o.sellerId} for update nowait`,
        ).resolves.toHaveLength(1);
      });
    },
  );
});
