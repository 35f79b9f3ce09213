import { createHash, randomBytes } from 'node:crypto';
import type { Db } from '../../src/db/index.js';
import {
  provisionAgent,
  type Agent,
  type PayoutAddressing,
} from '../../src/domain/accounts/accounts.js';
import { archiveKeyOf, insertItem } from '../../src/domain/listings/listings.js';
import { type Chain } from '../../src/wire/chains.js';
import { toMicro } from '../../src/wire/money.js';
import type { BlobStore } from '../../src/storage/blob-store.js';

export interface SaleItem {
  itemId: string;
  seller: Agent;
  bytes: Buffer;
  sha256: string;
  priceMicro: number;
}

/**
 * An active, purchasable listing written directly (as a passed scan leaves it), with its archive
 * bytes in the blob store so that downloads stream real content.
 */
export async function createSaleItem(
  deps: { sql: Db; storage: BlobStore },
  opts: {
    sellerAddress?: string;
    priceUsdc?: number;
    salesChains?: Chain[];
    bytes?: Buffer;
    compression?: 'zip' | 'tar.gz';
    title?: string;
    /** Comma-separated stack (default "typescript"). */
    techStack?: string;
    /** The archive's file name as stored (default project.zip / project.tar.gz). */
    fileName?: string;
    /** How the seller's payout addresses are assigned (default: the dev ledger's). */
    payouts?: PayoutAddressing;
  } = {},
): Promise<SaleItem> {
  const sellerAddress = opts.sellerAddress ?? `0x${randomBytes(20).toString('hex')}`;
  const { agent: seller } = await provisionAgent(
    deps.sql,
    sellerAddress,
    opts.payouts ? { payouts: opts.payouts } : { payoutSalt: 'test' },
  );
  if (opts.salesChains) {
    await deps.sql`update agents set sales_chains = ${opts.salesChains} where id = ${seller.id}`;
  }
  const bytes = opts.bytes ?? Buffer.concat([Buffer.from('PK\x03\x04'), randomBytes(2048)]);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const compression = opts.compression ?? 'zip';
  const key = archiveKeyOf(sha256, compression);
  await deps.storage.put(key, bytes);
  const priceMicro = toMicro(opts.priceUsdc ?? 0.5);
  const [row] = await deps.sql<{ id: string }[]>`
    ${insertItem(deps.sql, seller.id, {
      status: 'active',
      statusReason: 'approved',
      title: opts.title ?? 'Test artifact',
      description: 'A test artifact',
      promptSummary: null,
      techStack: opts.techStack ?? 'typescript',
      price: priceMicro,
      archiveSha256: sha256,
      archiveKey: key,
      archiveSize: bytes.length,
      compression,
      fileName: opts.fileName ?? (compression === 'zip' ? 'project.zip' : 'project.tar.gz'),
    })}
    returning id`;
  return { itemId: row!.id, seller, bytes, sha256, priceMicro };
}
