import { createHash } from 'node:crypto';
import type { PaymentRequired } from '@x402/core/types';
import { parse as parseDisposition } from 'content-disposition';
import { toMicro, toUsdc } from '../wire/money.js';
import { InvoiceSchema, type Invoice } from '../wire/orders.js';
import type { Connection } from './connection.js';
import { MarketplaceError } from './errors.js';

export interface Download {
  bytes: Buffer;
  sha256: string;
  contentType: string;
  fileName: string | undefined;
  /** The SHA-256 the server states for the archive. */
  statedSha256: string | null;
}

/** Refuses a prompt whose any accepted requirement asks for more than `maxUsdc` (USDC base units). */
export function priceLimit(maxUsdc: number): (required: PaymentRequired) => void {
  return (required) => {
    const price = required.accepts.reduce(
      (m, a) => (BigInt(a.amount) > m ? BigInt(a.amount) : m),
      0n,
    );
    if (price > BigInt(toMicro(maxUsdc))) {
      throw new MarketplaceError(402, 'price_above_limit', {
        price_usdc: toUsdc(price),
        max_price_usdc: maxUsdc,
      });
    }
  };
}

/** The archive behind a signed download link, with its digest. */
export async function download(
  c: Connection,
  url: string,
  opts: { signal?: AbortSignal } = {},
): Promise<Download> {
  const res = await c.fetchFn(url, opts.signal ? { signal: opts.signal } : undefined);
  if (!res.ok) await c.json(res);
  const bytes = Buffer.from(await res.arrayBuffer());
  const disposition = res.headers.get('content-disposition') ?? '';
  return {
    bytes,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    contentType: res.headers.get('content-type') ?? '',
    fileName: dispositionFileName(disposition),
    statedSha256: res.headers.get('x-content-sha256'),
  };
}

/** The JSON invoice behind an invoice link (Revision A's keyed route gets the key). */
export async function invoiceJson(c: Connection, url: string): Promise<Invoice> {
  return c.json(
    await c.fetchFn(url, { headers: { accept: 'application/json', ...c.ownHeaders(url) } }),
    InvoiceSchema,
  );
}

/** An invoice representation by `accept` (JSON, HTML or Markdown). */
export async function invoice(c: Connection, url: string, accept: string): Promise<string> {
  const res = await c.fetchFn(url, { headers: { accept, ...c.ownHeaders(url) } });
  if (!res.ok) await c.json(res);
  return res.text();
}

/** The file name a `Content-Disposition` names (`filename*` first, as RFC 6266 says), if any. */
function dispositionFileName(header: string): string | undefined {
  if (!header) return undefined;
  try {
    return parseDisposition(header).parameters.filename || undefined;
  } catch {
    return undefined;
  }
}
