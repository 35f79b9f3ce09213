import { existsSync } from 'node:fs';
import path from 'node:path';
import { generatePrivateKey } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Attestor } from '../../src/domain/scan/attestor.js';
import { recordSigner } from '../../src/domain/scan/signers.js';
import type { AttestationMessage } from '../../src/wire/previews.js';
import { startListeningTestApp, type ListeningTestContext } from '../helpers/app.js';
import { uniqueProject, zipOf } from '../helpers/archives.js';
import { TEST_ADMIN_TOKEN } from '../helpers/console.js';
import { connectMcp, textOf } from '../helpers/mcp.js';
import { listItem } from '../helpers/selling.js';
import { newWallet } from '../helpers/wallets.js';

/**
 * An operator withdraws a retired attestation key (s40): it is published no more, so the reports
 * it signed stop verifying: a real MCP client (one that read the signers while the key was still
 * published, too) refuses to pay for such a listing. The key signing now cannot be withdrawn.
 * Through the operator API (what `npm run attestation:withdraw` calls while a service runs).
 */
let t: ListeningTestContext;
const closers: Array<() => Promise<void>> = [];
beforeAll(async () => {
  t = await startListeningTestApp({ ADMIN_TOKEN: TEST_ADMIN_TOKEN, MAX_ACTIVE_LISTINGS: '100' });
});
afterAll(async () => {
  await Promise.all(closers.map((c) => c()));
  await t?.close();
});

/** A scanned listing whose report is signed (validly) by `old`, a key recorded as having signed here. */
async function signedByRetired(old: Attestor, seed: string): Promise<string> {
  const id = await listItem(t, newWallet(), {
    bytes: zipOf(uniqueProject(seed)),
    compression: 'zip',
  });
  await t.runtime.runDueJobs();
  const sql = t.runtime.deps.sql;
  const [row] = await sql<{ message: AttestationMessage }[]>`
    select message from scan_attestations where item_id = ${id}`;
  const signature = await old.sign(row!.message);
  await recordSigner(sql, old.address);
  await sql`update scan_attestations set signer = ${old.address}, signature = ${signature.toLowerCase()}
            where item_id = ${id}`;
  return id;
}

const published = async () =>
  (
    (await (await fetch(`${t.base}/api/v1/skills`)).json()) as {
      scan_attestation: { signer: string; retired_signers: string[] };
    }
  ).scan_attestation;

const withdraw = (address: string, token = TEST_ADMIN_TOKEN) =>
  fetch(`${t.base}/admin/api/attestation/withdraw`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ address }),
  });

describe('withdrawing a retired attestation key', () => {
  it('stops the reports it signed from verifying, for an MCP server that read it before too', async () => {
    const old = new Attestor(generatePrivateKey());
    const [first, second] = [
      await signedByRetired(old, 'withdraw1'),
      await signedByRetired(old, 'withdraw2'),
    ];
    expect((await published()).retired_signers).toContain(old.address);
    const mcp = await connectMcp(t.base, { transport: 'http' });
    closers.push(mcp.close);
    const buy = (item_id: string) =>
      mcp.call('acquire_item', { item_id, max_price_usdc: 10, accept_terms: true });
    // while published, its report verifies (and this MCP server now holds it among the signers)
    const before = await buy(first);
    expect(before.isError, textOf(before)).toBeFalsy();

    const res = await withdraw(old.address);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ address: old.address, reports: 2 });
    expect((await published()).retired_signers).not.toContain(old.address);
    // idempotent: the first withdrawal stands
    expect((await withdraw(old.address.toLowerCase())).status).toBe(200);

    const orders = async () =>
      (
        await t.runtime.deps.sql<{ n: number }[]>`
          select count(*)::int as n from orders where item_id = ${second}`
      )[0]!.n;
    const after = await buy(second);
    expect(after.isError).toBe(true);
    expect(textOf(after)).toMatch(
      new RegExp(
        `refused before paying: .*signed by ${old.address}, which is not one of the marketplace's published attestation addresses.*Nothing was signed or charged`,
      ),
    );
    expect(await orders()).toBe(0);
    expect(existsSync(path.join(mcp.dataDir, 'downloads', second))).toBe(false);
    const [audit] = await t.runtime.deps.sql<{ n: number }[]>`
      select count(*)::int as n from operator_audit
      where action = 'attestation.withdraw' and target = ${old.address}`;
    expect(audit!.n).toBe(1);
  });

  it('refuses the key signing now, an unknown key, a malformed one and a wrong token', async () => {
    const current = (await published()).signer;
    const now = await withdraw(current);
    expect(now.status).toBe(400);
    expect(await now.json()).toMatchObject({ error: 'invalid_request' });
    expect((await published()).signer).toBe(current);

    const unknown = await withdraw(new Attestor(generatePrivateKey()).address);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: 'not_found' });

    const malformed = await withdraw('0x1234');
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ error: 'invalid_address' });

    expect((await withdraw(current, 'x'.repeat(48))).status).toBe(401);
  });
});
