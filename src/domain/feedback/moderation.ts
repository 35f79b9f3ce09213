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

/** One verdict's outcome as `moderate` prints it. */
export type VerdictLine =
  | { feedback_id: string; moderation_status: 'approved' | 'rejected' }
  | { feedback_id: string; error: string };

/**
 * Where `moderate` reads and judges: the database itself, or the running service's operator API
 * when that service holds the embedded database (src/operator-api.ts). `judge` answers one
 * outcome per id, in the order given.
 */
export interface ModerationDesk {
  list(limit: number): Promise<unknown[]>;
  judge(ids: string[], verdict: 'approve' | 'reject'): Promise<VerdictLine[]>;
}

/** The database as the desk: each verdict in its own statement, as the console's are. */
export function databaseDesk(sql: Db): ModerationDesk {
  return {
    list: (limit) => listPendingFeedback(sql, limit),
    async judge(ids, verdict) {
      const out: VerdictLine[] = [];
      for (const id of ids) {
        try {
          out.push(await moderateFeedback(sql, id, verdict));
        } catch (e) {
          if (!(e instanceof AppError)) throw e;
          out.push({ feedback_id: id, error: e.code });
        }
      }
      return out;
    },
  };
}

const USAGE = 'usage: moderate [list [--limit N] | approve <id>... | reject <id>...]';

type ModerateRequest =
  | { action: 'list'; limit: number }
  | { action: 'approve' | 'reject'; ids: string[] }
  | { refused: string };

/**
 * The `moderate` command's arguments, read before anything is opened: `list [--limit N]`
 * (default), `approve <id>...`, `reject <id>...`. Anything else (`list --all`, a stray word) is
 * refused, never taken as the plain list.
 */
export function parseModerate(args: readonly string[]): ModerateRequest {
  const [action = 'list', ...rest] = args;
  if (action === 'list') {
    if (rest.length === 0) return { action, limit: 100 };
    if (rest.length !== 2 || rest[0] !== '--limit') return { refused: USAGE };
    const limit = Number(rest[1]);
    if (!Number.isInteger(limit) || limit < 1) return { refused: '--limit needs a whole number' };
    return { action, limit };
  }
  if ((action !== 'approve' && action !== 'reject') || rest.length === 0) return { refused: USAGE };
  return { action, ids: rest };
}

/**
 * The `moderate` command (arguments as `parseModerate` reads them). Returns the lines to print
 * (one JSON object each) and whether every id was found.
 */
export async function runModerate(
  desk: ModerationDesk,
  args: string[],
): Promise<{ lines: string[]; ok: boolean }> {
  const request = parseModerate(args);
  if ('refused' in request) return { lines: [request.refused], ok: false };
  if (request.action === 'list') {
    return { lines: (await desk.list(request.limit)).map((r) => JSON.stringify(r)), ok: true };
  }
  const { action, ids: rest } = request;
  const valid = rest.filter((id) => UUID.test(id));
  const judged = valid.length ? await desk.judge(valid, action) : [];
  let next = 0;
  const outcomes: VerdictLine[] = rest.map((id) =>
    UUID.test(id) ? judged[next++]! : { feedback_id: id, error: 'invalid_feedback_id' },
  );
  return {
    lines: outcomes.map((o) => JSON.stringify(o)),
    ok: outcomes.every((o) => !('error' in o)),
  };
}

/** `moderate` straight on the database. */
export function moderateCommand(
  sql: Db,
  args: string[],
): Promise<{ lines: string[]; ok: boolean }> {
  return runModerate(databaseDesk(sql), args);
}
