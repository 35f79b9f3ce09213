import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';
import { AppError } from '../../errors.js';

/**
 * Every signed link the service hands out (spec 2.3, 5.2 rule 9): bearer credentials bound by
 * HMAC to the kind of link, its subject (an order, or a listing for its fee invoice), the file
 * (the archive's SHA-256) and an expiry. Refetched for free; never stored.
 */
export type LinkKind = 'download' | 'invoice' | 'listing-invoice';

export interface LinkTarget {
  kind: LinkKind;
  /** The order (download, invoice) or the listing (listing-invoice). */
  id: string;
  /** The archive's SHA-256: a link never serves different bytes than the ones it was made for. */
  fileSha256: string;
}

const PATHS: Record<LinkKind, string> = {
  download: '/api/v1/downloads',
  invoice: '/api/v1/invoices',
  'listing-invoice': '/api/v1/listing-invoices',
};

/** Where a fresh link of each kind comes from, for the `link_expired` message. */
const REFRESH: Record<LinkKind, (id: string) => string> = {
  download: (id) => `fetch fresh links with GET /api/v1/orders/${id}`,
  invoice: (id) => `fetch fresh links with GET /api/v1/orders/${id}`,
  'listing-invoice': () => 'the link came with the upload response; ask the operator for a copy',
};

/**
 * The signing key as a KeyObject, made once per key: `createHmac` given a Buffer copies it into a
 * new key object on every call, several times the cost of the MAC itself (two per purchase).
 */
const keyObjects = new WeakMap<Buffer, KeyObject>();
function keyObjectOf(key: Buffer): KeyObject {
  let k = keyObjects.get(key);
  if (!k) keyObjects.set(key, (k = createSecretKey(key)));
  return k;
}

function mac(key: Buffer, t: LinkTarget, exp: number): string {
  return createHmac('sha256', keyObjectOf(key))
    .update(`link:v2:${t.kind}:${t.id}:${t.fileSha256}:${exp}`)
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
  return `${baseUrl}${PATHS[t.kind]}/${t.id}?exp=${exp}&sig=${mac(key, t, exp)}`;
}

/**
 * Throws 403 `invalid_link` (tampered) or `link_expired`; returns when the link is good.
 * `refresh` says where a fresh link comes from when that differs per revision (the order routes).
 */
export function verifyLink(
  key: Buffer,
  t: LinkTarget,
  exp: string | undefined,
  sig: string | undefined,
  nowMs = Date.now(),
  refresh?: string,
): void {
  const expN = Number(exp);
  if (!exp || !sig || !/^\d{1,12}$/.test(exp)) throw invalidLink();
  const expected = Buffer.from(mac(key, t, expN));
  const given = Buffer.from(sig);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw invalidLink();
  if (expN * 1000 <= nowMs) {
    throw new AppError('link_expired', {
      message: `this link has expired; ${refresh ?? REFRESH[t.kind](t.id)}`,
    });
  }
}

/**
 * 403 `invalid_link`. Also the answer to a link naming an order that does not exist, so that a
 * link's answer never tells whether an order id exists (a forged link for an unknown order and a
 * tampered link for a real one read the same).
 */
export const invalidLink = () =>
  new AppError('invalid_link', { message: 'the link signature does not match' });

/** Human lifetime as clients expect it, e.g. 900 -> "15 minutes". */
export function humanDuration(seconds: number): string {
  const unit = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`;
  if (seconds % 3600 === 0) return unit(seconds / 3600, 'hour');
  if (seconds % 60 === 0) return unit(seconds / 60, 'minute');
  return unit(seconds, 'second');
}
