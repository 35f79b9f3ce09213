import type { Logger } from 'pino';
import type { Config } from '../../config.js';
import type { Db, Sql } from '../../db/index.js';
import { noStatementTimeout } from '../../db/timeouts.js';
import type { Embedder } from '../../embeddings/embedder.js';
import type { BlobStore } from '../../storage/blob-store.js';
import { readBlob } from '../../storage/blob-store.js';
import { finishJob, type Job, type JobHandler } from '../../jobs/queue.js';
import { indexItem } from '../search/index-item.js';
import { bands, similarity } from '../../scan/fingerprint.js';
import { PreviewCollector, type Preview } from '../../scan/preview.js';
import { scanArchive, type Compression } from '../../scan/scan-archive.js';
import { storePreview } from '../items/preview.js';
import { attestActivation } from './attestation.js';
import type { Attestor } from './attestor.js';
import type { Finding, ScanLimits, ScanStats } from '../../scan/types.js';
import type { Telemetry } from '../telemetry.js';

export interface ScanDeps {
  config: Config;
  sql: Sql;
  storage: BlobStore;
  embedder: Embedder;
  logger: Logger;
  telemetry?: Pick<Telemetry, 'scanned'>;
  /** Signs the scan report of each listing that turns active (issue 29). */
  attestor?: Attestor;
}

export function scanLimits(config: Config): ScanLimits {
  return {
    maxExtractedBytes: config.SCAN_MAX_EXTRACTED_BYTES,
    maxRatio: config.SCAN_MAX_RATIO,
    ratioMinBytes: config.SCAN_RATIO_MIN_BYTES,
    maxEntries: config.SCAN_MAX_ENTRIES,
    maxNestingDepth: config.SCAN_MAX_NESTING_DEPTH,
    maxNestedBytes: config.MAX_ARCHIVE_BYTES,
    minSourceLines: config.SCAN_MIN_SOURCE_LINES,
  };
}

type Verdict =
  | {
      kind: 'active';
      signature: number[];
      lineCount: number;
      stats: ScanStats;
      /** Absent when it could not be computed (never a reason to refuse the listing). */
      preview: Preview | undefined;
    }
  | {
      kind: 'rejected';
      reason: 'safety_checks_failed' | 'insufficient_complexity' | 'duplicate_content';
      findings: Finding[];
      stats: ScanStats;
    };

export const SCAN_JOB = 'scan';

/** The scan job of a new listing (queued by the listing fee's fulfilment). */
export const scanJob = (itemId: string, maxAttempts: number) => ({
  kind: SCAN_JOB,
  payload: { item_id: itemId },
  key: itemId,
  itemId,
  maxAttempts,
});

/** The scan as a job kind: retried with backoff by the runner, `processing_error` at the end. */
export function scanJobHandler(deps: ScanDeps): JobHandler {
  return {
    run: (job) => runScanJob(deps, job),
    onError: (job, err, final, sql) => recordScanError(deps, sql, job, err, final),
  };
}

const itemOf = (job: Job) => String(job.payload.item_id);

/**
 * Runs one claimed scan job: marks the item `scanning`, reads the archive from the blob store,
 * scans it, applies the near-duplicate rule against active listings, then moves the item
 * `scanning` → `active` (with its embedding, so it is searchable at once) or `rejected` with a
 * public reason, ending the job in the same transaction. Detailed findings go to `scan_results`
 * for operators only. Unexpected failures throw: the runner retries them with backoff.
 */
export async function runScanJob(deps: ScanDeps, job: Job): Promise<void> {
  const { sql, config, logger } = deps;
  const started = Date.now();
  const [item] = await sql<
    {
      id: string;
      status: string;
      archiveKey: string;
      archiveSha256: string;
      compression: Compression;
    }[]
  >`
    with claimed as (
      update items set status = 'scanning', updated_at = now()
      where id = ${itemOf(job)} and status = 'pending_scan'
      returning id, status, archive_key, archive_sha256, compression
    )
    select * from claimed
    union all
    select id, status, archive_key, archive_sha256, compression from items
    where id = ${itemOf(job)} and not exists (select 1 from claimed)`;
  if (!item || item.status !== 'scanning') {
    // Deleted while queued, or already decided by an earlier attempt: nothing to do.
    await finishJob(
      sql,
      job.id,
      'done',
      item ? `item is ${item.status}` : 'item purged',
      job.holder,
    );
    return;
  }
  const verdict = await judge(deps, item);
  const duration = Date.now() - started;
  if (verdict.kind === 'active') {
    const v = verdict;
    const outcome = await sql.begin(async (tx) => {
      // Activations take turns, and the near-duplicate rule is checked again inside the turn:
      // two copies scanned at once by different workers each saw no active twin in judge() (the
      // other was not committed yet) and both went live. Activations are rare and short.
      // The turn waits without the statement timeout: a turn ahead of it may spend up to the
      // remote embedder's 30 s timeout in indexItem, so a waiter was cancelled past the default
      // statement timeout (30 s) and its attempt counted; three and a paid listing was refused
      // `processing_error`. The wait is bounded by the holder's own work, and the holder's
      // transaction by the idle-in-transaction timeout, which still ends a hung one.
      await noStatementTimeout(tx);
      await tx`select pg_advisory_xact_lock(${ACTIVATION_LOCK_KEY})`;
      const twin = await nearDuplicate(tx, config, item.id, v.signature, v.stats);
      if (twin) {
        await writeRejection(tx, item, job, twin, duration);
        return twin;
      }
      const [moved] = await tx`
        update items set status = 'active', status_reason = 'approved', activated_at = now(), updated_at = now()
        where id = ${item.id} and status = 'scanning' returning 1 as ok`;
      if (moved) {
        await indexItem(tx, deps.embedder, item.id);
        await tx`insert into item_fingerprints (item_id, minhash, bands, line_count)
                 values (${item.id}, ${v.signature}, ${bands(v.signature)}, ${v.lineCount})
                 on conflict (item_id) do nothing`;
        if (v.preview) await storePreview(tx, item.id, v.preview);
        if (deps.attestor) await attestActivation(tx, deps.attestor, item.id);
      }
      await tx`insert into scan_results (item_id, attempt, verdict, reason, stats, duration_ms)
               values (${item.id}, ${job.attempts}, 'active', 'approved', ${tx.json({ ...v.stats })}, ${duration})`;
      await finishJob(tx, job.id, 'done', undefined, job.holder);
      return undefined;
    });
    deps.telemetry?.scanned(outcome?.reason ?? 'approved', duration / 1000);
    if (outcome)
      logger.info(
        { itemId: item.id, reason: outcome.reason, ms: duration },
        'scan refused the listing',
      );
    else logger.info({ itemId: item.id, ms: duration }, 'scan passed; item active');
    return;
  }
  await sql.begin((tx) => writeRejection(tx, item, job, verdict, duration));
  deps.telemetry?.scanned(verdict.reason, duration / 1000);
  logger.info(
    { itemId: item.id, reason: verdict.reason, ms: duration },
    'scan refused the listing',
  );
}

/**
 * Every failed attempt is kept for operators; the last one rejects with `processing_error`. `sql`
 * is the runner's transaction that ends the job, which it may try again while the database is out
 * of reach: the attempt is counted once it is written.
 */
async function recordScanError(
  deps: ScanDeps,
  sql: Db,
  job: Job,
  err: unknown,
  final: boolean,
): Promise<void> {
  const message = (err instanceof Error ? err.message : String(err)).slice(0, 500);
  await sql`insert into scan_results (item_id, attempt, verdict, reason, findings, duration_ms)
            select id, ${job.attempts}, 'error', 'processing_error',
                   ${sql.json([{ check: 'processing_error', detail: storable(message) }])}, 0
            from items where id = ${itemOf(job)}`;
  if (final) {
    await sql`update items set status = 'rejected', status_reason = 'processing_error', updated_at = now()
              where id = ${itemOf(job)} and status = 'scanning'`;
  }
  deps.telemetry?.scanned(final ? 'processing_error' : 'error');
}

/** Transaction-level advisory lock key under which scanned items turn active (see runScanJob). */
export const ACTIVATION_LOCK_KEY = 727275;

type Rejection = Extract<Verdict, { kind: 'rejected' }>;

/**
 * jsonb cannot hold U+0000 ("unsupported Unicode escape sequence"), and a finding's file is the
 * raw entry name: a NUL in a name (refused by the name rule) made the refusal itself fail, three
 * times, and the seller read processing_error. It is stored spelled out, as JSON shows it.
 */
const storable = (s: string) => s.replaceAll('\u0000', '\\u0000');
const storableFinding = (f: Rejection['findings'][number]) => ({
  ...f,
  ...(f.file !== undefined && { file: storable(f.file) }),
  ...(f.detail !== undefined && { detail: storable(f.detail) }),
});

async function writeRejection(
  tx: Db,
  item: { id: string; archiveSha256: string },
  job: Job,
  verdict: Rejection,
  duration: number,
) {
  await tx`update items set status = 'rejected', status_reason = ${verdict.reason}, updated_at = now()
           where id = ${item.id} and status = 'scanning'`;
  await tx`insert into rejected_archives (archive_sha256, item_id, reason)
           values (${item.archiveSha256}, ${item.id}, ${verdict.reason}) on conflict do nothing`;
  await tx`insert into scan_results (item_id, attempt, verdict, reason, findings, stats, duration_ms)
           values (${item.id}, ${job.attempts}, 'rejected', ${verdict.reason},
                   ${tx.json(verdict.findings.map(storableFinding))}, ${tx.json({ ...verdict.stats })}, ${duration})`;
  await finishJob(tx, job.id, 'done', undefined, job.holder);
}

async function judge(
  deps: ScanDeps,
  item: { id: string; archiveKey: string; compression: Compression },
): Promise<Verdict> {
  const bytes = await readBlob(deps.storage, item.archiveKey, deps.config.MAX_ARCHIVE_BYTES);
  const collector = new PreviewCollector();
  const out = await scanArchive(
    bytes,
    item.compression,
    scanLimits(deps.config),
    undefined,
    collector,
  );
  if (out.verdict === 'reject')
    return { kind: 'rejected', reason: out.reason, findings: out.findings, stats: out.stats };
  const signature = out.signature;
  const twin = await nearDuplicate(deps.sql, deps.config, item.id, signature, out.stats);
  if (twin) return twin;
  const preview = collector.result();
  if (!preview)
    deps.logger.warn({ itemId: item.id, reason: collector.failure }, 'preview not computed');
  return { kind: 'active', signature, lineCount: out.lineCount, stats: out.stats, preview };
}

/** `duplicate_content` when an active listing is at or above the near-duplicate threshold. */
async function nearDuplicate(
  sql: Db,
  config: Config,
  itemId: string,
  signature: number[],
  stats: ScanStats,
): Promise<Rejection | undefined> {
  const near = await nearestActive(sql, itemId, signature);
  if (!near || near.similarity < config.SCAN_DUPLICATE_THRESHOLD) return undefined;
  return {
    kind: 'rejected',
    reason: 'duplicate_content',
    findings: [
      {
        check: 'near_duplicate',
        detail: `similar to active item ${near.itemId} (estimated ${near.similarity.toFixed(2)})`,
      },
    ],
    stats,
  };
}

/** The most similar active listing among LSH candidates (any shared band). */
async function nearestActive(
  sql: Db,
  itemId: string,
  signature: number[],
): Promise<{ itemId: string; similarity: number } | undefined> {
  const rows = await sql<{ itemId: string; minhash: number[] }[]>`
    select f.item_id, f.minhash from item_fingerprints f join items i on i.id = f.item_id
    where i.status = 'active' and i.id <> ${itemId} and f.bands && ${bands(signature)}::text[]
    limit 200`;
  let best: { itemId: string; similarity: number } | undefined;
  for (const r of rows) {
    const s = similarity(signature, r.minhash);
    if (!best || s > best.similarity) best = { itemId: r.itemId, similarity: s };
  }
  return best;
}
