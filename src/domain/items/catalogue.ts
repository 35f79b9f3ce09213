import type { Db } from '../../db/index.js';
import type { PublicItem } from '../../wire/items.js';
import { publicColumns, toPublicItem, type PublicItemRow } from './public-item.js';

/**
 * The public catalogue page's list when nobody searched yet: the newest active listings, with the
 * page's stack words (each a case-insensitive part of the listing's stack) and price range.
 */
export async function newestListings(
  sql: Db,
  f: { techStack?: string; minPrice?: number; maxPrice?: number },
  opts: { ratingThreshold: number; limit?: number },
): Promise<PublicItem[]> {
  const words = (f.techStack ?? '')
    .split(',')
    .map((w) => w.trim())
    .filter(Boolean);
  // each word a plain substring of the stack: LIKE metacharacters in it are escaped
  const stack = words.reduce(
    (acc, w) => sql`${acc} and i.tech_stack ilike ${`%${w.replace(/[\\%_]/g, '\\$&')}%`}`,
    sql``,
  );
  const min =
    f.minPrice !== undefined ? sql`and i.price_micro >= ${Math.round(f.minPrice * 1e6)}` : sql``;
  const max =
    f.maxPrice !== undefined ? sql`and i.price_micro <= ${Math.round(f.maxPrice * 1e6)}` : sql``;
  const rows = await sql<PublicItemRow[]>`
    select ${publicColumns(sql)}
    from items i join agents a on a.id = i.seller_id
    where i.status = 'active' ${stack} ${min} ${max}
    order by i.activated_at desc nulls last, i.id limit ${opts.limit ?? 20}`;
  return rows.map((r) => toPublicItem(r, opts.ratingThreshold));
}
