import {
  SellerItemsSchema,
  type ItemStatus,
  type SellerItems,
  type UploadMetadata,
} from '../wire/listings.js';
import type { Connection } from './connection.js';

export interface UploadInput {
  compression: 'zip' | 'tar.gz';
  metadata: UploadMetadata;
  fileName?: string;
}

/** The multipart upload body, built afresh for each attempt (a FormData body is read once). */
export function uploadForm(bytes: Buffer, opts: UploadInput): () => FormData {
  const fileName = opts.fileName ?? (opts.compression === 'zip' ? 'archive.zip' : 'archive.tar.gz');
  return () => {
    const f = new FormData();
    f.set('metadata', JSON.stringify(opts.metadata));
    f.set('compression', opts.compression);
    f.set('file', new Blob([new Uint8Array(bytes)]), fileName);
    return f;
  };
}

/** The seller's own listings, every state (zero-value identity, or the key in Revision A). */
export function sellerItems(
  c: Connection,
  query: { status?: ItemStatus; limit?: number; offset?: number },
): Promise<SellerItems> {
  return c.identity('GET', `/api/v1/seller/items${queryString(query)}`, SellerItemsSchema);
}

/** `?k=v&…` of the defined fields, in order; '' when none is. */
export function queryString(query: Record<string, string | number | boolean | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined) q.set(k, String(v));
  return q.size ? `?${q}` : '';
}
