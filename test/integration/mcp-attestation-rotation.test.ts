import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AcquireResultSchema } from '../../mcp/tools/acquire-item.js';
import { backfillPreviews } from '../../src/domain/scan/backfill.js';
import { Attestor } from '../../src/domain/scan/attestor.js';
import { retiredSigners } from '../../src/domain/scan/signers.js';
import type { AttestationMessage } from '../../src/wire/previews.js';
import { freePort, startTestApp, type TestContext } from '../helpers/app.js';
import { uniqueProject, zipOf } from '../helpers/archives.js';
import { freshDataDir } from '../helpers/data-dir.js';
import { connectMcp, textOf } from '../helpers/mcp.js';
import { databaseEnv } from '../helpers/postgres.js';
import { listItem } from '../helpers/selling.js';
import { newWallet } from '../helpers/wallets.js';

/**
 * The attestation key changes (ATTESTATION_PRIVATE_KEY A, then B, on the same database): reports
 * signed with A still verify for a buyer, since the service publishes A as a retired signer, and
 * the one-off signs the active listings again with B. A real MCP client (Streamable HTTP on
 * loopback) buys through the real service; a report no published key signed is refused before
 * anything is signed.
 */
const keyA = generatePrivateKey();
const keyB = generatePrivateKey();
const A = privateKeyToAccount(keyA).address;
const B = privateKeyToAccount(keyB).address;
let shared: Record<string, string>;
let port: number;
let base: string;
let t: TestContext | undefined;
const closers: Array<() => Promise<void>> = [];

/** The service on its one port and database, signing with `key` (a restart after the first). */
async function serve(key: `0x${string}`): Promise<TestContext> {
  await t?.close();
  t = await startTestApp({ ...shared, PUBLIC_BASE_URL: base, ATTESTATION_PRIVATE_KEY: key });
  await t.app.listen({ port, host: '127.0.0.1' });
  return t;
}

beforeAll(async () => {
  port = await freePort();
  base = `http://127.0.0.1:${port}`;
  const db = await databaseEnv();
  shared = {
    MAX_ACTIVE_LISTINGS: '100',
    ARCHIVES_DIR: mkdtempSync(path.join(tmpdir(), 'attest-rotation-archives-')),
    ...(db.DATABASE_URL
      ? db
      : { DATA_DIR: await freshDataDir('attest-rotation-'), EMBEDDED_DB_IN_MEMORY: 'false' }),
  };
});
afterAll(async () => {
  await Promise.all(closers.map((c) => c()));
  await t?.close();
});

async function scannedListing(s: TestContext, seed: string): Promise<string> {
  const id = await listItem(s, newWallet(), {
    bytes: zipOf(uniqueProject(seed)),
    compression: 'zip',
  });
  await s.runtime.runDueJobs();
  return id;
}

const signerOf = async (id: string) =>
  ((await (await fetch(`${base}/api/v1/items/${id}/attestation`)).json()) as { signer: string })
    .signer;

const paymentsAndOrders = async (s: TestContext, itemId: string) =>
  (
    await s.runtime.deps.sql<{ payments: number; orders: number }[]>`
      select (select count(*)::int from x402_payments) as payments,
             (select count(*)::int from orders where item_id = ${itemId}) as orders`
  )[0]!;

describe('after the attestation key changes', () => {
  it('buys listings signed with the old key, re-signs them with the new one, refuses an unknown signer before paying', async () => {
    let s = await serve(keyA);
    const [first, old1, old2] = [
      await scannedListing(s, 'rot1'),
      await scannedListing(s, 'rot2'),
      await scannedListing(s, 'rot3'),
    ];
    const connect = async () => {
      const mcp = await connectMcp(base, { transport: 'http' });
      closers.push(mcp.close);
      const buy = (item_id: string) =>
        mcp.call('acquire_item', { item_id, max_price_usdc: 10, accept_terms: true });
      return { ...mcp, buy };
    };
    // an MCP server that read the published signers before the rotation: [A]
    const early = await connect();
    const before = await early.buy(first);
    expect(before.isError, textOf(before)).toBeFalsy();

    s = await serve(keyB);
    // a report signed before the rotation, bought by an MCP server started after it: verified
    // against the retired signer, the archive kept
    const mcp = await connect();
    const r1 = await mcp.buy(old1);
    expect(r1.isError, textOf(r1)).toBeFalsy();
    const out1 = AcquireResultSchema.parse(r1.structuredContent);
    expect(out1.scan_report).toMatchObject({ verified: true, signer: A });
    expect(existsSync(out1.archive!.path)).toBe(true);
    const skills = (await (await fetch(`${base}/api/v1/skills`)).json()) as {
      scan_attestation: { signer: string; retired_signers: string[] };
    };
    expect(skills.scan_attestation).toMatchObject({ signer: B, retired_signers: [A] });

    // the one-off signs the active listings' reports again with B (a second run signs nothing)
    const res = await backfillPreviews(s.runtime.deps);
    expect(res).toMatchObject({ total: 3, attestations: 3, skipped: 0 });
    expect(await backfillPreviews(s.runtime.deps)).toMatchObject({ total: 0, attestations: 0 });
    expect(await signerOf(old2)).toBe(B);
    // no stored report carries A any more: it is no longer published
    expect(await retiredSigners(s.runtime.deps.sql, B)).toEqual([]);
    // the early MCP server still holds [A]: it reads the signers again and accepts B
    const r2 = await early.buy(old2);
    expect(r2.isError, textOf(r2)).toBeFalsy();
    const out2 = AcquireResultSchema.parse(r2.structuredContent);
    expect(out2.scan_report).toMatchObject({ verified: true, signer: B });
    expect(existsSync(out2.archive!.path)).toBe(true);

    // a report signed, validly, by a key this marketplace never published (a planted row)
    const planted = await scannedListing(s, 'rot4');
    const stranger = new Attestor(generatePrivateKey());
    const [row] = await s.runtime.deps.sql<{ message: AttestationMessage }[]>`
      select message from scan_attestations where item_id = ${planted}`;
    const signature = await stranger.sign(row!.message);
    await s.runtime.deps.sql`
      update scan_attestations set signer = ${stranger.address}, signature = ${signature.toLowerCase()}
      where item_id = ${planted}`;
    const spent = await paymentsAndOrders(s, planted);
    const r3 = await mcp.buy(planted);
    expect(r3.isError).toBe(true);
    expect(textOf(r3)).toMatch(
      new RegExp(
        `refused before paying: .*signed by ${stranger.address}, which is not one of the marketplace's published attestation addresses.*Nothing was signed or charged`,
      ),
    );
    expect(await paymentsAndOrders(s, planted)).toEqual({ ...spent, orders: 0 });
    expect(existsSync(path.join(mcp.dataDir, 'downloads', planted))).toBe(false);
  });
});
