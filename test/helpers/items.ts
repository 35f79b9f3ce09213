import { createHash, randomBytes } from 'node:crypto';
import type { Db } from '../../src/db/index.js';
import { provisionAgent, type Agent } from '../../src/domain/accounts/accounts.js';
import { usdcToMicro, type Chain } from '../../src/domain/chains.js';
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
  } = {},
): Promise<SaleItem> {
  const sellerAddress = opts.sellerAddress ?? `0x${randomBytes(20).toString('hex')}`;
  const { agent: seller } = await provisionAgent(deps.sql, sellerAddress, { payoutSalt: 'test' });
  if (opts.salesChains) {
    await deps.sql`update agents set sales_chains = ${opts.salesChains} where id = ${seller.id}`;
  }
  const bytes = opts.bytes ?? Buffer.concat([Buffer.from('PK\x03\x04'), randomBytes(2048)]);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const compression = opts.compression ?? 'zip';
  const key = `archives/${sha256}.${compression === 'zip' ? 'zip' : 'tar.gz'}`;
  await deps.storage.put(key, bytes);
  const priceMicro = usdcToMicro(opts.priceUsdc ?? 0.5);
  const [row] = await deps.sql<{ id: string }[]>`
    insert into items (seller_id, status, status_reason, title, description, tech_stack, price_micro,
                       archive_sha256, archive_key, archive_size, compression, file_name, activated_at)
    values (${seller.id}, 'active', 'approved', ${opts.title ?? 'Test artifact'}, 'A test artifact',
            'typescript', ${priceMicro}, ${sha256}, ${key}, ${bytes.length}, ${compression},
            ${compression === 'zip' ? 'project.zip' : 'project.tar.gz'}, now())
    returning id`;
  return { itemId: row!.id, seller, bytes, sha256, priceMicro };
}
