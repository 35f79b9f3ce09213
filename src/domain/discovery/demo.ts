import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createGzip } from 'node:zlib';
import { pack } from 'tar-stream';
import type { DemoPorts } from '../ports.js';
import { provisionAgent } from '../accounts/accounts.js';
import { archiveKeyOf, insertItem } from '../listings/listings.js';
import { toMicro } from '../../wire/money.js';
import { bands } from '../../scan/fingerprint.js';
import { PreviewCollector } from '../../scan/preview.js';
import { storePreview } from '../items/preview.js';
import { attestActivation } from '../scan/attestation.js';
import { scanArchive } from '../../scan/scan-archive.js';
import { scanLimits } from '../scan/scan-job.js';
import { indexItem } from '../search/index-item.js';
import { DEMO_LISTINGS, type DemoListing } from './demo-listings.js';

const DEMO_SELLERS = 4;

function demoSellerAddress(n: number): string {
  return `0x${createHash('sha256').update(`demo-seller-${n}`).digest('hex').slice(0, 40)}`;
}

/** The demo projects' sources: one folder per listing, named by the listing's slug. */
export const DEMO_PROJECTS_DIR = new URL('../../../assets/demo/', import.meta.url);

export function demoSlug(l: DemoListing): string {
  return l.title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

function filesUnder(dir: string, prefix = ''): string[] {
  return readdirSync(path.join(dir, prefix), { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .flatMap((e) =>
      e.isDirectory() ? filesUnder(dir, path.join(prefix, e.name)) : [path.join(prefix, e.name)],
    );
}

/**
 * The listing's archive: its project folder under assets/demo/ (real code that does what the title
 * says) as a tar.gz, with a fixed mtime so that the same listing always gives the same bytes.
 */
export async function demoArchive(l: DemoListing): Promise<Buffer> {
  const slug = demoSlug(l);
  const dir = fileURLToPath(new URL(`${slug}/`, DEMO_PROJECTS_DIR));
  const tar = pack();
  const gz = tar.pipe(createGzip());
  const chunks: Buffer[] = [];
  gz.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<void>((resolve, reject) => {
    gz.on('end', resolve);
    gz.on('error', reject);
  });
  const at = { mtime: new Date('2026-01-01T00:00:00Z') };
  for (const file of filesUnder(dir))
    tar.entry(
      { name: `${slug}/${file.split(path.sep).join('/')}`, ...at },
      readFileSync(path.join(dir, file)),
    );
  tar.entry({ name: `${slug}/LICENSE`, ...at }, 'Sold under the marketplace buyer licence v1.\n');
  tar.finalize();
  await done;
  return Buffer.concat(chunks);
}

/**
 * Loads the demo catalogue: a few dozen realistic active listings from four demo sellers, each with
 * a real archive in the blob store so that buying and downloading work. Idempotent: listings whose
 * archive is already present are skipped.
 */
export async function loadDemoData(deps: DemoPorts): Promise<{ added: number; skipped: number }> {
  const { sql, storage, embedder, config, payoutAddressing } = deps;
  const sellers = [];
  for (let n = 0; n < DEMO_SELLERS; n++) {
    sellers.push(
      (await provisionAgent(sql, demoSellerAddress(n), { payouts: payoutAddressing })).agent,
    );
  }
  let added = 0;
  let skipped = 0;
  for (const [i, l] of DEMO_LISTINGS.entries()) {
    const bytes = await demoArchive(l);
    const sha = createHash('sha256').update(bytes).digest('hex');
    const [exists] =
      await sql`select 1 from items where archive_sha256 = ${sha} and status <> 'deleted'`;
    if (exists) {
      skipped++;
      continue;
    }
    // scanned as an upload would be: a demo archive the scan refuses is a bug in the demo data
    const preview = new PreviewCollector();
    const verdict = await scanArchive(bytes, 'tar.gz', scanLimits(config), undefined, preview);
    if (verdict.verdict !== 'accept')
      throw new Error(`demo archive for "${l.title}" refused by the scan: ${verdict.reason}`);
    const key = archiveKeyOf(sha, 'tar.gz');
    await storage.put(key, bytes, { contentType: 'application/gzip' });
    const [row] = await sql<{ id: string }[]>`
      ${insertItem(sql, sellers[i % DEMO_SELLERS]!.id, {
        status: 'active',
        statusReason: 'approved',
        title: l.title,
        description: l.description,
        promptSummary: l.promptSummary ?? null,
        techStack: l.techStack,
        price: toMicro(l.price),
        archiveSha256: sha,
        archiveKey: key,
        archiveSize: bytes.length,
        compression: 'tar.gz',
        fileName: `${l.title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}.tar.gz`,
      })}
      returning id`;
    await indexItem(sql, embedder, row!.id);
    await sql`insert into item_fingerprints (item_id, minhash, bands, line_count)
              values (${row!.id}, ${verdict.signature}, ${bands(verdict.signature)}, ${verdict.lineCount})`;
    const computed = preview.result();
    if (computed) await storePreview(sql, row!.id, computed);
    if (deps.attestor) await attestActivation(sql, deps.attestor, row!.id);
    added++;
  }
  return { added, skipped };
}
