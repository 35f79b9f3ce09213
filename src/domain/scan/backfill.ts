import { readBlob } from '../../storage/blob-store.js';
import { PreviewCollector } from '../../scan/preview.js';
import { scanArchive, type Compression } from '../../scan/scan-archive.js';
import { storePreview } from '../items/preview.js';
import { attestActivation } from './attestation.js';
import { scanLimits, type ScanDeps } from './scan-job.js';

export interface BackfillProgress {
  done: number;
  total: number;
  previews: number;
  attestations: number;
  /** Listings whose archive the current scan refuses or cannot read: left as they are, logged. */
  skipped: number;
}

/**
 * The one-off for listings that went active before issue 29 (`npm run previews`): each active
 * listing without a preview or a signed scan report, or whose report was signed by another key
 * than today's (before ATTESTATION_PRIVATE_KEY changed), is scanned again from its stored
 * archive, with today's rules, and gets what it lacks: a report signed by a retired key is
 * replaced by one signed with the current key, so buyers soon need only the current signer. A
 * listing the current scan would refuse keeps its status (an operator decides, see `moderate`)
 * and gets neither; `force` recomputes every preview (a report signed with the current key is
 * never replaced). Resumable: it only looks at what lacks.
 */
export async function backfillPreviews(
  deps: ScanDeps,
  opts: { force?: boolean; batchSize?: number; onProgress?: (p: BackfillProgress) => void } = {},
): Promise<BackfillProgress> {
  const { sql, logger } = deps;
  const batchSize = opts.batchSize ?? 50;
  const current = deps.attestor?.address ?? '';
  // attested here: a report signed with today's key
  const attested = sql`exists (select 1 from scan_attestations s
                               where s.item_id = i.id and lower(s.signer) = lower(${current}))`;
  const lacking = opts.force
    ? sql`true`
    : sql`(not exists (select 1 from item_previews p where p.item_id = i.id)
           ${deps.attestor ? sql`or not ${attested}` : sql``})`;
  const [{ total } = { total: 0 }] = await sql<{ total: number }[]>`
    select count(*)::int as total from items i where i.status = 'active' and ${lacking}`;
  const p: BackfillProgress = { done: 0, total, previews: 0, attestations: 0, skipped: 0 };
  opts.onProgress?.({ ...p });
  let after = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    const rows = await sql<
      { id: string; archiveKey: string; compression: Compression; attested: boolean }[]
    >`
      select i.id, i.archive_key, i.compression, ${attested} as attested
      from items i where i.status = 'active' and i.id > ${after} and ${lacking}
      order by i.id limit ${batchSize}`;
    if (rows.length === 0) break;
    for (const r of rows) {
      after = r.id;
      try {
        const bytes = await readBlob(deps.storage, r.archiveKey, deps.config.MAX_ARCHIVE_BYTES);
        const collector = new PreviewCollector();
        const out = await scanArchive(
          bytes,
          r.compression,
          scanLimits(deps.config),
          undefined,
          collector,
        );
        if (out.verdict !== 'accept') {
          p.skipped++;
          logger.warn(
            { itemId: r.id, reason: out.reason, findings: out.findings.slice(0, 3) },
            'backfill: the current scan refuses this active listing; left as it is',
          );
        } else {
          const preview = collector.result();
          if (preview) {
            await storePreview(sql, r.id, preview);
            p.previews++;
          } else logger.warn({ itemId: r.id, reason: collector.failure }, 'preview not computed');
          if (deps.attestor && !r.attested) {
            // signed only while the listing is still active (it may have been deleted meanwhile)
            const signed = await sql.begin(async (tx) => {
              const [still] = await tx`select 1 from items where id = ${r.id} and status = 'active'
                                       for update`;
              if (still) await attestActivation(tx, deps.attestor!, r.id, { resign: true });
              return !!still;
            });
            if (signed) p.attestations++;
          }
        }
      } catch (err) {
        p.skipped++;
        logger.warn({ itemId: r.id, err }, 'backfill: could not read or scan this listing');
      }
      p.done++;
      opts.onProgress?.({ ...p, total: Math.max(p.total, p.done) });
    }
  }
  return p;
}
