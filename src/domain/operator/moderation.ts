import type { Sql } from '../../db/index.js';
import { AppError } from '../../errors.js';
import { moderateFeedback } from '../feedback/moderation.js';
import { recordAudit } from './audit.js';

/** A pending item feedback as the moderation queue shows it. */
export interface QueuedFeedback {
  feedback_id: string;
  item_id: string;
  item_title: string;
  buyer_username: string;
  seller_username: string;
  rating: number | null;
  text: string | null;
  created_at: string;
}

export async function moderationQueue(sql: Sql, limit = 100): Promise<QueuedFeedback[]> {
  const rows = await sql<
    {
      id: string;
      itemId: string;
      title: string;
      buyer: string;
      seller: string;
      rating: number | null;
      text: string | null;
      createdAt: Date;
    }[]
  >`
    select f.id, f.item_id, i.title, b.username as buyer, s.username as seller, f.rating, f.text,
           f.created_at
    from item_feedback f
    join items i on i.id = f.item_id
    join agents b on b.id = f.buyer_id
    join agents s on s.id = i.seller_id
    where f.moderation_status = 'pending'
    order by f.created_at, f.id limit ${limit}`;
  return rows.map((r) => ({
    feedback_id: r.id,
    item_id: r.itemId,
    item_title: r.title,
    buyer_username: r.buyer,
    seller_username: r.seller,
    rating: r.rating,
    text: r.text,
    created_at: r.createdAt.toISOString(),
  }));
}

export type VerdictOutcome =
  | { feedback_id: string; moderation_status: 'approved' | 'rejected' }
  | { feedback_id: string; error: 'feedback_not_found' };

/**
 * Approves or rejects each pending row, each in its own transaction with its audit row; an
 * approved text is in the seller's inbox when this returns. A row that is not pending (already
 * judged, or unknown) is reported and changes nothing.
 */
export async function judgeFeedback(
  sql: Sql,
  actor: string,
  ids: string[],
  verdict: 'approve' | 'reject',
): Promise<VerdictOutcome[]> {
  const out: VerdictOutcome[] = [];
  for (const id of ids) {
    try {
      out.push(
        await sql.begin(async (tx) => {
          const res = await moderateFeedback(tx, id, verdict);
          await recordAudit(tx, { actor, action: `feedback.${verdict}`, target: id });
          return res;
        }),
      );
    } catch (e) {
      if (!(e instanceof AppError) || e.code !== 'feedback_not_found') throw e;
      out.push({ feedback_id: id, error: 'feedback_not_found' });
    }
  }
  return out;
}
