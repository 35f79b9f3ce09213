import type { Db } from '../../db/index.js';
import { AppError } from '../../errors.js';
import type { ItemFeedbackBody, ItemFeedbackCreated } from '../../wire/feedback.js';

/**
 * Item feedback (spec 2.5, 3.2, 4.2 notes, 7.2): only the caller's most recent completed order on
 * the item counts, within `windowDays` of its completion; one feedback per (item, buyer), decided
 * by the table's unique constraint. A rating alone is approved at once: public ratings are
 * aggregated from approved rows (src/domain/items/public-item.ts), so the insert IS the aggregate
 * update, in the same statement. Any text waits for moderation (`npm run moderate`).
 */
export async function submitItemFeedback(
  sql: Db,
  buyerId: string,
  itemId: string,
  body: ItemFeedbackBody,
  windowDays: number,
): Promise<ItemFeedbackCreated> {
  const rating = body?.rating ?? null;
  // Blank text is no text: a rating with an empty review is a rating alone.
  const text = body?.text?.trim() ? body.text.trim() : null;
  if (rating === null && text === null) {
    throw new AppError('empty_feedback', { message: 'send a rating (0..10), a text or both' });
  }
  const status = text === null ? 'approved' : 'pending';
  // Eligibility, the existing row and the insert in one statement: no check-then-write race.
  const [row] = await sql<
    {
      orderId: string | null;
      inWindow: boolean | null;
      existing: boolean;
      feedbackId: string | null;
    }[]
  >`
    with last_order as (
      select id, completed_at >= now() - make_interval(secs => ${windowDays * 86_400}) as in_window
      from orders
      where buyer_id = ${buyerId} and item_id = ${itemId} and status = 'completed'
      order by completed_at desc, id desc limit 1
    ), inserted as (
      insert into item_feedback (item_id, buyer_id, order_id, rating, text, moderation_status, moderated_at)
      select ${itemId}, ${buyerId}, id, ${rating}, ${text}, ${status},
             case when ${status} = 'approved' then now() end
      from last_order where in_window
      on conflict (item_id, buyer_id) do nothing
      returning id
    )
    select (select id from last_order) as order_id,
           (select in_window from last_order) as in_window,
           exists (select 1 from item_feedback where item_id = ${itemId} and buyer_id = ${buyerId}) as existing,
           (select id from inserted) as feedback_id`;
  if (row!.feedbackId) return { feedback_id: row!.feedbackId, moderation_status: status };
  if (!row!.orderId) {
    throw new AppError('not_buyer', {
      message: 'only a wallet with a completed order on this item can give feedback on it',
    });
  }
  if (row!.existing) {
    throw new AppError('feedback_already_submitted', {
      message: 'this wallet already gave feedback on this item',
    });
  }
  throw new AppError('feedback_window_expired', {
    message: `feedback is open for ${windowDays} days after your most recent order on this item completed`,
  });
}
