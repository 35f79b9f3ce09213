import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPayouts } from '../../src/domain/payouts/payout-job.js';
import { NETWORK_OF } from '../../src/wire/chains.js';
import type { LocalFacilitator } from '../../src/x402/local-facilitator.js';
import { activeListing, buy } from '../helpers/accounts.js';
import { databaseEnv, holdInSession, ON_POSTGRES } from '../helpers/postgres.js';
import { startSellingApp, type SellingContext } from '../helpers/selling.js';
import { newWallet } from '../helpers/wallets.js';

// Postgres only: the embedded database is one in-process session that nothing else can lock, and
// it has no statement timeout (src/db/timeouts.ts).
describe.runIf(ON_POSTGRES)('a payout the rail sent is recorded, whatever holds its table', () => {
  let t: SellingContext;
  let other: postgres.Sql;
  beforeAll(async () => {
    const env = await databaseEnv();
    t = await startSellingApp({ ...env, DATABASE_STATEMENT_TIMEOUT_SECONDS: '1' });
    other = postgres(env.DATABASE_URL!, { max: 1, onnotice: () => {} });
  });
  afterAll(async () => {
    await other?.end();
    await t?.close();
  });

  it('waits out a lock on payouts longer than the statement timeout instead of losing the record', async () => {
    const deps = t.runtime.deps;
    await runPayouts(deps); // what earlier tests' sales left
    const seller = newWallet();
    const item = await activeListing(t, seller, { prices: { USDC: 2 } });
    await buy(t, newWallet(), item, 'base');
    const local = deps.facilitator as LocalFacilitator;
    const before = BigInt(await local.balanceOf(NETWORK_OF.base, seller.address));

    // a migration's ALTER TABLE payouts on another replica, held 2.5 s: past the 1 s timeout
    const release = await holdInSession(
      other,
      (tx) => tx`lock table payouts in access exclusive mode`,
    );
    const released = new Promise((r) => setTimeout(r, 2_500)).then(release);
    const started = Date.now();
    const report = await runPayouts(deps);
    const waited = Date.now() - started;
    await released;

    const received = BigInt(await local.balanceOf(NETWORK_OF.base, seller.address)) - before;
    expect(received).toBeGreaterThan(0n);
    expect(report).toMatchObject({ paid: 1, failed: 0 });
    expect(waited).toBeGreaterThan(1_500);
    const rows = await other<{ sellerRaw: string }[]>`
      select p.seller_raw::text as "sellerRaw" from payouts p
      join payout_addresses a on a.chain = p.chain and lower(a.address) = p.payout_address
      join agents g on g.id = a.agent_id
      where g.address = ${seller.address.toLowerCase()}`;
    expect(rows.map((r) => BigInt(r.sellerRaw))).toEqual([received]);
    // the next pass finds only the dust: nothing more to send or record
    expect(await runPayouts(deps)).toMatchObject({ paid: 0, failed: 0 });
  }, 60_000);
});
