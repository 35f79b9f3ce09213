import type { Sql } from '../../db/index.js';
import { AppError } from '../../errors.js';
import {
  listPendingFeedback,
  moderateFeedback,
  type PendingFeedback,
} from '../feedback/moderation.js';
import { recordAudit } from './audit.js';

/** A pending item feedback as the moderation queue shows it (the same rows as `moderate list`). */
export type QueuedFeedback = PendingFeedback;
export const moderationQueue = listPendingFeedback;

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
