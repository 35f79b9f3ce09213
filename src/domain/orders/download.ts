import type { Readable } from 'node:stream';
import parseRange from 'range-parser';
import { AppError } from '../../errors.js';
import { storageUnavailable, type BlobStore } from '../../storage/blob-store.js';

interface Log {
  error(obj: object, msg: string): void;
}

const UNREADABLE =
  'Archive storage is unavailable; your order stands and nothing is charged again. Retry the same link after the time given.';

/**
 * The bytes of a paid order's archive, as the download route serves them. The buyer has paid, so
 * a store problem is never a 500 and never reads as a lost order: a store that errors (disk, S3
 * outage) is 503 `storage_unavailable` with `retry_after` (the same link works again once it is
 * back); bytes that are gone although the order needs them (they are never purged while an order
 * refers to them: ../listings/purge.ts) are 404 `archive_unavailable` naming the order, and the
 * operator is told by an error log line.
 */
export async function archiveSize(
  storage: BlobStore,
  order: { id: string; archiveKey: string },
  log: Log,
): Promise<number> {
  let stat;
  try {
    stat = await storage.stat(order.archiveKey);
  } catch (err) {
    log.error({ err, orderId: order.id, key: order.archiveKey }, 'archive store unreadable');
    throw storageUnavailable(UNREADABLE);
  }
  if (!stat) {
    log.error(
      { orderId: order.id, key: order.archiveKey },
      'archive bytes missing for a completed order',
    );
    throw new AppError('archive_unavailable', { details: { order_id: order.id } });
  }
  return stat.size;
}

/** The archive's byte stream (a range of it), with the same answers as `archiveSize` on failure. */
export async function archiveStream(
  storage: BlobStore,
  order: { id: string; archiveKey: string },
  log: Log,
  range?: { start: number; end: number },
): Promise<Readable> {
  try {
    return await storage.createReadStream(order.archiveKey, range);
  } catch (err) {
    // removed between the stat and the open: as missing
    if ((err as { code?: unknown } | null)?.code === 'ENOENT') {
      log.error({ orderId: order.id, key: order.archiveKey }, 'archive bytes missing on open');
      throw new AppError('archive_unavailable', { details: { order_id: order.id } });
    }
    log.error({ err, orderId: order.id, key: order.archiveKey }, 'archive store unreadable');
    throw storageUnavailable(UNREADABLE);
  }
}

/** The archive's strong validator: its bytes never change under an order (the link binds them). */
export const archiveEtag = (sha256: string): string => `"${sha256}"`;

/**
 * RFC 9110 14.1.2: a suffix range longer than the representation selects all of it. range-parser
 * counts it unsatisfiable (its start is negative), so a zip reader asking for the last 65,557
 * bytes of a smaller archive got a 416; each such suffix becomes the whole size. `-0` stays as it
 * is (a suffix of no bytes is unsatisfiable).
 */
function wholeSuffixes(range: string, size: number): string {
  return range.replace(/([=,]\s*)-(\d+)/g, (spec, lead: string, digits: string) =>
    /^0*$/.test(digits) || Number(digits) <= size ? spec : `${lead}-${size}`,
  );
}

/**
 * Whether a byte range names its last byte before its first ("bytes=5-2"): RFC 9110 14.1.1 calls
 * such a range-spec invalid (not unsatisfiable) and RFC 2616 14.35.1 has the recipient ignore the
 * whole header, as for any other malformed Range; range-parser reads it as unsatisfiable (416).
 */
function invertedSpec(range: string): boolean {
  const eq = range.indexOf('=');
  if (eq < 0) return false;
  return range
    .slice(eq + 1)
    .split(',')
    .some((spec) => {
      const m = /^\s*(\d+)\s*-\s*(\d+)\s*$/.exec(spec);
      return m !== null && Number(m[2]) < Number(m[1]);
    });
}

/**
 * The byte range a download serves (RFC 9110 section 14), parsed by the jshttp `range-parser`:
 * undefined for the whole archive (no Range, another unit, a malformed, inverted ("5-2") or
 * multi-part request, or an `If-Range` that is not the archive's ETag: a date never matches, as
 * no Last-Modified is sent), one inclusive range for a 206 (a suffix longer than the archive is
 * all of it), or 416 `range_not_satisfiable` (its Content-Range names the size) when it starts
 * past the end.
 */
export function byteRange(
  size: number,
  etag: string,
  range: string | undefined,
  ifRange: string | undefined,
): { start: number; end: number } | undefined {
  if (!range) return undefined;
  if (ifRange !== undefined && ifRange.trim() !== etag) return undefined;
  if (invertedSpec(range)) return undefined;
  const ranges = parseRange(size, wholeSuffixes(range, size), { combine: true });
  if (ranges === -1) {
    throw new AppError('range_not_satisfiable', {
      headers: { 'Content-Range': `bytes */${size}` },
    });
  }
  if (ranges === -2 || ranges.type !== 'bytes' || ranges.length !== 1) return undefined;
  return ranges[0];
}
