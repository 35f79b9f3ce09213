import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/index.js';
import { saleStillValid } from '../../src/domain/orders/acquire.js';
import { startTestApp, type TestContext } from '../helpers/app.js';
import { createSaleItem } from '../helpers/items.js';
import { ON_POSTGRES } from '../helpers/postgres.js';
import { clientFor, newWallet } from '../helpers/wallets.js';

/**
 * An order names its item and seller without a foreign key (migration 478; before, one key on the
 * pair, migration 476): the purchase statement's own sale check reads the item (active, this
 * seller, this price) in the statement that writes the order, and a sold item cannot be deleted
 * (the trigger `items_keep_sold`, and the retention purge serialised against purchases:
 * purge-purchase-race.test.ts). The seller's account exists through the item's own key.
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

  it('a purchase naming another seller than its item has is refused, nothing written', async () => {
    const o = await sold();
    const [agent] = await sql()<{ address: string }[]>`
      select address from agents where id = ${o.buyerId}`;
    const check = (sellerId: string) =>
      sql()<{ ok: boolean }[]>`
        select ${saleStillValid(sql(), { id: o.itemId, sellerId }, 'base', agent!.address, 1_000_000)} as ok`;
    expect((await check(o.buyerId))[0]!.ok).toBe(false);
  });

  it('a purchase of an item that does not exist is refused by its sale check', async () => {
    const o = await sold();
    const [row] = await sql()<{ ok: boolean }[]>`
      select ${saleStillValid(sql(), { id: randomUUID(), sellerId: o.sellerId }, 'base', '0x0', 1_000_000)} as ok`;
    expect(row!.ok).toBe(false);
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
      // an item not sold yet: no committed order names it
      const item = await createSaleItem(t.runtime.deps, { priceUsdc: 1 });
      await sql().begin(async (tx) => {
        expect(await insertOrder(item.itemId, o.sellerId, tx)).toBe('inserted');
        // a delete waits for the order in flight (the trigger's lock): it cannot go ahead of it
        await expect(
          sql().begin(async (d) => {
            await d`set local lock_timeout = '100ms'`;
            await d`delete from items where id = ${item.itemId}`;
          }),
        ).rejects.toMatchObject({ code: '55P03' });
        // neither the item's row nor the seller's account row is locked by the order
        await expect(
          sql()`select 1 from items where id = ${item.itemId} for update nowait`,
        ).resolves.toHaveLength(1);
        await expect(
          sql()`select 1 from agents where id = ${o.sellerId} for update nowait`,
        ).resolves.toHaveLength(1);
      });
    },
  );
});
