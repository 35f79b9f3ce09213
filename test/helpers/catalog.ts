import { createHash, randomBytes } from 'node:crypto';
import type { Db } from '../../src/db/index.js';
import { provisionAgent, type Agent } from '../../src/domain/accounts/accounts.js';
import { insertItem } from '../../src/domain/listings/listings.js';
import { toMicro } from '../../src/wire/money.js';
import { indexItem } from '../../src/domain/search/index-item.js';
import type { Embedder } from '../../src/embeddings/embedder.js';

export interface ListingSeed {
  title: string;
  description: string;
  techStack: string;
  price?: number;
  promptSummary?: string;
  status?: 'pending_scan' | 'scanning' | 'active' | 'rejected' | 'deleted';
  seller?: Agent;
}

export function randomAddress(): string {
  return `0x${randomBytes(20).toString('hex')}`;
}

export async function seedSeller(sql: Db, address = randomAddress()): Promise<Agent> {
  return (await provisionAgent(sql, address, { payoutSalt: 'test' })).agent;
}

/**
 * Inserts a listing row directly (as a finished scan would leave it) and indexes it when active.
 * The archive key points nowhere: catalogue tests never download.
 */
export async function seedListing(sql: Db, embedder: Embedder, seed: ListingSeed): Promise<string> {
  const seller = seed.seller ?? (await seedSeller(sql));
  const sha = createHash('sha256').update(randomBytes(16)).digest('hex');
  const status = seed.status ?? 'active';
  const reason = {
    pending_scan: 'pending_review',
    scanning: 'pending_review',
    active: 'approved',
    rejected: 'safety_checks_failed',
    deleted: 'removed',
  }[status];
  const [row] = await sql<{ id: string }[]>`
    ${insertItem(sql, seller.id, {
      status,
      statusReason: reason,
      title: seed.title,
      description: seed.description,
      promptSummary: seed.promptSummary ?? null,
      techStack: seed.techStack,
      price: toMicro(seed.price ?? 1),
      archiveSha256: sha,
      archiveKey: `test/${sha}`,
      archiveSize: 1234,
      compression: 'zip',
      fileName: 'project.zip',
    })}
    returning id`;
  if (status === 'active' || status === 'deleted') await indexItem(sql, embedder, row!.id);
  return row!.id;
}

/** Adds approved ratings from fresh buyers (the rating aggregate counts only approved ones). */
export async function seedRatings(
  sql: Db,
  itemId: string,
  ratings: number[],
  moderation = 'approved',
): Promise<void> {
  for (const rating of ratings) {
    const buyer = await seedSeller(sql);
    await sql`insert into item_feedback (item_id, buyer_id, rating, moderation_status)
              values (${itemId}, ${buyer.id}, ${rating}, ${moderation})`;
  }
}

/** Six unlike tasks to seed a catalogue with (the search index tests spread them over stacks or prices). */
export const TASKS = [
  'CSV to JSON converter with schema inference',
  'Rate limiter middleware with a token bucket',
  'PDF invoice generator with templates',
  'Web crawler that respects robots.txt',
  'JWT login and refresh token service',
  'Image thumbnail resizing worker',
];
