import type { Db } from '../../db/index.js';
import { AppError } from '../../errors.js';
import type { InboxQuery, InboxResponse } from '../../wire/feedback.js';

/**
 * The seller's inbox (spec 2.5, 3.3, 4.3 rule 7): approved feedback on the caller's items, oldest
 * first. The default mode marks the rows it returns read in the statement that reads them: the
 * rows are locked as they are picked (rows another reader is delivering are skipped) and
 * `was_unread` is true only where this statement's update changed `read_at`, so two concurrent
 * readers never both receive a row as unread. `peek` reads without locking or marking.
 */
export async function readInbox(sql: Db, sellerId: string, q: InboxQuery): Promise<InboxResponse> {
  const since = q.since ? sql`and f.created_at >= ${q.since}` : sql``;
  const until = q.until ? sql`and f.created_at < ${q.until}` : sql``;
  const unreadOnly = q.include_read ? sql`` : sql`and f.read_at is null`;
  const pick = sql`
    select f.id from item_feedback f join items i on i.id = f.item_id
    where i.seller_id = ${sellerId} and f.moderation_status = 'approved' ${unreadOnly} ${since} ${until}
    order by f.created_at, f.id limit ${q.limit}`;
  const rows = await sql<
    {
      id: string;
      itemId: string;
      rating: number | null;
      text: string | null;
      createdAt: Date;
      wasUnread: boolean;
    }[]
  >`
    with picked as (${q.peek ? pick : sql`${pick} for update of f skip locked`}),
    marked as (
      ${
        q.peek
          ? sql`select null::uuid as id where false`
          : sql`update item_feedback f set read_at = now()
                from picked where f.id = picked.id and f.read_at is null returning f.id`
      }
    )
    select f.id, f.item_id, f.rating, f.text, f.created_at,
           case when ${q.peek} then f.read_at is null else m.id is not null end as was_unread
    from item_feedback f join picked p on p.id = f.id left join marked m on m.id = f.id
    order by f.created_at, f.id`;
  return {
    items: rows.map((r) => ({
      feedback_id: r.id,
      item_id: r.itemId,
      rating: r.rating,
      text: r.text,
      created_at: r.createdAt.toISOString(),
      was_unread: r.wasUnread,
    })),
  };
}

/**
 * Marks one approved feedback row of the caller's items read (idempotent). 404 when the row does
 * not exist, is not on the caller's items or is not approved (absence and ownership look alike).
 */
export async function ackFeedback(sql: Db, sellerId: string, feedbackId: string): Promise<void> {
  const [row] = await sql`
    update item_feedback f set read_at = coalesce(f.read_at, now())
    from items i
    where f.id = ${feedbackId} and i.id = f.item_id and i.seller_id = ${sellerId}
      and f.moderation_status = 'approved'
    returning f.id`;
  if (!row) {
    throw new AppError('feedback_not_found', {
      message: 'no approved feedback with this id is on your items',
    });
  }
}
