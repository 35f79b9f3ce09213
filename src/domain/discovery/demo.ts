import { createHash } from 'node:crypto';
import { createGzip } from 'node:zlib';
import { pack } from 'tar-stream';
import type { Deps } from '../../deps.js';
import { payoutAddressing, provisionAgent } from '../accounts/accounts.js';
import { archiveKeyOf, insertItem } from '../listings/listings.js';
import { usdcToMicro } from '../chains.js';
import { indexItem } from '../search/index-item.js';
import { DEMO_LISTINGS, type DemoListing } from './demo-listings.js';

const DEMO_SELLERS = 4;

function demoSellerAddress(n: number): string {
  return `0x${createHash('sha256').update(`demo-seller-${n}`).digest('hex').slice(0, 40)}`;
}

const EXT: Array<[RegExp, string]> = [
  [/typescript/i, 'ts'],
  [/rust/i, 'rs'],
  [/\bgo\b/i, 'go'],
  [/python/i, 'py'],
  [/solidity/i, 'sol'],
  [/c\+\+/i, 'cpp'],
  [/terraform/i, 'tf'],
  [/javascript|node/i, 'js'],
];

/** A small, real tar.gz project for a demo listing: README, a source file and a manifest. */
async function demoArchive(l: DemoListing): Promise<Buffer> {
  const ext = EXT.find(([re]) => re.test(l.techStack))?.[1] ?? 'txt';
  const slug = l.title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
  const tar = pack();
  const gz = tar.pipe(createGzip());
  const chunks: Buffer[] = [];
  gz.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<void>((resolve, reject) => {
    gz.on('end', resolve);
    gz.on('error', reject);
  });
  const at = { mtime: new Date('2026-01-01T00:00:00Z') }; // fixed: the same listing gives the same bytes
  tar.entry(
    { name: `${slug}/README.md`, ...at },
    `# ${l.title}\n\n${l.description}\n\nStack: ${l.techStack}\n`,
  );
  tar.entry(
    { name: `${slug}/src/main.${ext}`, ...at },
    `// ${l.title}\n// Demo listing source: ${l.description}\n\n` +
      `export function describe() {\n  return ${JSON.stringify(l.title)};\n}\n`,
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
export async function loadDemoData(deps: Deps): Promise<{ added: number; skipped: number }> {
  const { sql, storage, embedder, config } = deps;
  const sellers = [];
  for (let n = 0; n < DEMO_SELLERS; n++) {
    sellers.push(
      (await provisionAgent(sql, demoSellerAddress(n), { payouts: payoutAddressing(config) }))
        .agent,
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
        priceMicro: usdcToMicro(l.price),
        archiveSha256: sha,
        archiveKey: key,
        archiveSize: bytes.length,
        compression: 'tar.gz',
        fileName: `${l.title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}.tar.gz`,
      })}
      returning id`;
    await indexItem(sql, embedder, row!.id);
    added++;
  }
  return { added, skipped };
}
