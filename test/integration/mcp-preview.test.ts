import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AcquireResultSchema } from '../../mcp/tools/acquire-item.js';
import { QuoteSchema } from '../../mcp/tools/quote-item.js';
import { ItemPreviewSchema } from '../../src/wire/previews.js';
import { startListeningTestApp, type ListeningTestContext } from '../helpers/app.js';
import { uniqueProject, zipOf } from '../helpers/archives.js';
import { connectMcp, textOf } from '../helpers/mcp.js';
import { listItem } from '../helpers/selling.js';
import { newWallet } from '../helpers/wallets.js';

/**
 * Issue 29 through a real MCP client against the real service on loopback: preview_item shows
 * what the scan saw, quote_item carries the summary, and acquire_item reports a purchase as done
 * only once the signed scan report verifies and names the downloaded archive.
 */
let t: ListeningTestContext;
const closers: Array<() => Promise<void>> = [];
beforeAll(async () => {
  t = await startListeningTestApp({ MAX_ACTIVE_LISTINGS: '100' });
});
afterAll(async () => {
  await Promise.all(closers.map((c) => c()));
  await t?.close();
});

async function connect() {
  const c = await connectMcp(t.base);
  closers.push(c.close);
  return c;
}

/** An uploaded, scanned, active listing (with its preview and signed report). */
async function scannedListing(seed: string): Promise<{ id: string; bytes: Buffer }> {
  const bytes = zipOf({ ...uniqueProject(seed), LICENSE: 'ISC License\n\nCopyright (c) 2026 A\n' });
  const id = await listItem(t, newWallet(), { bytes, compression: 'zip' });
  await t.runtime.runDueJobs();
  return { id, bytes };
}

describe('preview_item and quote_item', () => {
  it('shows the preview before buying and the summary in the quote', async () => {
    const { id } = await scannedListing('mcpprv1');
    const { call } = await connect();
    const r = await call('preview_item', { item_id: id });
    expect(r.isError, textOf(r)).toBeFalsy();
    const p = ItemPreviewSchema.parse(r.structuredContent);
    expect(p).toMatchObject({
      item_id: id,
      files: 4,
      license: { spdx: 'ISC', file: 'LICENSE' },
      manifests: [{ path: 'package.json', kind: 'npm', packages: [] }],
      languages: [{ name: 'TypeScript', files: 1 }],
      readme: { path: 'README.md', excerpt: expect.stringContaining('# Project mcpprv1') },
    });
    const found = await call('search_items', { q: 'Todo REST API', license: 'isc' });
    const items = (found.structuredContent as { items: { id: string }[] }).items;
    expect(items.map((i) => i.id)).toContain(id);
    const other = await call('search_items', { q: 'Todo REST API', license: 'MIT' });
    expect(
      (other.structuredContent as { items: { id: string }[] }).items.map((i) => i.id),
    ).not.toContain(id);
    const q = QuoteSchema.parse((await call('quote_item', { item_id: id })).structuredContent);
    expect(q.preview).toEqual({
      files: 4,
      lines: p.lines,
      languages: ['TypeScript'],
      license: 'ISC',
    });
  });
});

describe('acquire_item checks the signed scan report', () => {
  it('verifies it against the published address and the downloaded archive', async () => {
    const { id, bytes } = await scannedListing('mcpprv2');
    const { call } = await connect();
    const r = await call('acquire_item', { item_id: id, max_price_usdc: 10, accept_terms: true });
    expect(r.isError, textOf(r)).toBeFalsy();
    const out = AcquireResultSchema.parse(r.structuredContent);
    expect(out.scan_report).toMatchObject({
      verified: true,
      signer: t.runtime.deps.attestor.address,
      scanner_version: expect.any(String),
    });
    expect(out.attestation!.typed_data.message.archiveSize).toBe(bytes.length);
    expect(out.archive).toMatchObject({ verified: true, bytes: bytes.length });
  });

  it('refuses before paying, and keeps no archive, when the report was altered', async () => {
    const { id } = await scannedListing('mcpprv3');
    // the statement as stored no longer matches its signature (a tampered row)
    await t.runtime.deps.sql`
      update scan_attestations
      set message = jsonb_set(message, '{scannerVersion}', '"9.9.9"') where item_id = ${id}`;
    const { call, dataDir } = await connect();
    const r = await call('acquire_item', { item_id: id, max_price_usdc: 10, accept_terms: true });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(
      /refused before paying: .*signed scan report of this listing does not hold: its signature does not verify.*Nothing was signed or charged/,
    );
    const [orders] = await t.runtime.deps.sql<{ n: number }[]>`
      select count(*)::int as n from orders where item_id = ${id}`;
    expect(orders!.n).toBe(0);
    expect(existsSync(path.join(dataDir, 'downloads'))).toBe(false);
  });
});
