import { createHmac, timingSafeEqual } from 'node:crypto';
import { AppError } from '../../errors.js';

/**
 * Signed download and invoice URLs (spec 2.3, 5.2 rule 9): bearer credentials bound by HMAC to the
 * kind of link, the order, the file (the archive's SHA-256) and an expiry. Refetched for free via
 * `GET /api/v1/orders/{uuid}`; never stored.
 */
export type LinkKind = 'download' | 'invoice';

export interface LinkTarget {
  kind: LinkKind;
  orderId: string;
  /** The archive's SHA-256: a link never serves different bytes than the order bought. */
  fileSha256: string;
}

const PATHS: Record<LinkKind, string> = {
  download: '/api/v1/downloads',
  invoice: '/api/v1/invoices',
};

function mac(key: Buffer, t: LinkTarget, exp: number): string {
  return createHmac('sha256', key)
    .update(`link:v1:${t.kind}:${t.orderId}:${t.fileSha256}:${exp}`)
    .digest('base64url');
}

export function signLink(
  key: Buffer,
  baseUrl: string,
  t: LinkTarget,
  ttlSeconds: number,
  nowMs = Date.now(),
): string {
  const exp = Math.floor(nowMs / 1000) + ttlSeconds;
  return `${baseUrl}${PATHS[t.kind]}/${t.orderId}?exp=${exp}&sig=${mac(key, t, exp)}`;
}

/** Throws 403 `invalid_link` (tampered) or `link_expired`; returns when the link is good. */
export function verifyLink(
  key: Buffer,
  t: LinkTarget,
  exp: string | undefined,
  sig: string | undefined,
  nowMs = Date.now(),
): void {
  const expN = Number(exp);
  if (!exp || !sig || !/^\d{1,12}$/.test(exp)) throw invalid();
  const expected = Buffer.from(mac(key, t, expN));
  const given = Buffer.from(sig);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw invalid();
  if (expN * 1000 <= nowMs) {
    throw new AppError('link_expired', {
      message: `this link has expired; fetch fresh links with GET /api/v1/orders/${t.orderId}`,
    });
  }
}

const invalid = () =>
  new AppError('invalid_link', { message: 'the link signature does not match' });

/** Human lifetime as clients expect it, e.g. 900 -> "15 minutes". */
export function humanDuration(seconds: number): string {
  const unit = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`;
  if (seconds % 3600 === 0) return unit(seconds / 3600, 'hour');
  if (seconds % 60 === 0) return unit(seconds / 60, 'minute');
  return unit(seconds, 'second');
}
