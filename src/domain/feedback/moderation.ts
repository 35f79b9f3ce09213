import type { Db } from '../../db/index.js';
import { AppError } from '../../errors.js';

/**
 * Moderation of item feedback with text (spec 3.2), for operators (`npm run moderate`): pending
 * rows are listed with their item and text; approving one makes its rating count and the row
 * visible in the seller's inbox, rejecting one hides it for good (rejected text is never shown).
 */
export interface PendingFeedback {
  feedback_id: string;
  item_id: string;
  item_title: string;
  buyer_username: string;
  seller_username: string;
  rating: number | null;
  text: string | null;
  created_at: string;
}

/** The pending rows, oldest first: the console's moderation queue and `moderate list`. */
export async function listPendingFeedback(sql: Db, limit = 100): Promise<PendingFeedback[]> {
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

/** Approves or rejects one pending row; a row that is not pending is `feedback_not_found`. */
export async function moderateFeedback(
  sql: Db,
  feedbackId: string,
  verdict: 'approve' | 'reject',
): Promise<{ feedback_id: string; moderation_status: 'approved' | 'rejected' }> {
  const status = verdict === 'approve' ? 'approved' : 'rejected';
  const [row] = await sql`
    update item_feedback set moderation_status = ${status}, moderated_at = now()
    where id = ${feedbackId} and moderation_status = 'pending'
    returning id`;
  if (!row) {
    throw new AppError('feedback_not_found', { message: `no pending feedback ${feedbackId}` });
  }
  return { feedback_id: feedbackId, moderation_status: status };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The `moderate` command: `list [--limit N]` (default), `approve <id>...`, `reject <id>...`.
 * Returns the lines to print (one JSON object each) and whether every id was found.
 */
export async function moderateCommand(
  sql: Db,
  args: string[],
): Promise<{ lines: string[]; ok: boolean }> {
  const [action = 'list', ...rest] = args;
  if (action === 'list') {
    const i = rest.indexOf('--limit');
    const limit = i >= 0 ? Number(rest[i + 1]) : 100;
    if (!Number.isInteger(limit) || limit < 1)
      return { lines: ['--limit needs a whole number'], ok: false };
    return {
      lines: (await listPendingFeedback(sql, limit)).map((r) => JSON.stringify(r)),
      ok: true,
    };
  }
  if ((action !== 'approve' && action !== 'reject') || rest.length === 0) {
    return {
      lines: ['usage: moderate [list [--limit N] | approve <id>... | reject <id>...]'],
      ok: false,
    };
  }
  const lines: string[] = [];
  let ok = true;
  for (const id of rest) {
    if (!UUID.test(id)) {
      lines.push(JSON.stringify({ feedback_id: id, error: 'invalid_feedback_id' }));
      ok = false;
      continue;
    }
    try {
      lines.push(JSON.stringify(await moderateFeedback(sql, id, action)));
    } catch (e) {
      if (!(e instanceof AppError)) throw e;
      lines.push(JSON.stringify({ feedback_id: id, error: e.code }));
      ok = false;
    }
  }
  return { lines, ok };
}
