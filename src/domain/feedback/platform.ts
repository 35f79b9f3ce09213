import type { Sql } from '../../db/index.js';
import { AppError } from '../../errors.js';
import { normaliseAddress } from '../accounts/accounts.js';
import type { PlatformFeedbackBody, PlatformFeedbackCreated } from '../../wire/feedback.js';

const DAY_SECONDS = 86_400;

/**
 * Platform feedback (spec 2.6, 4.3 rule 5, 8): any verified wallet may send, registered or not;
 * the sender's username is attached when an account exists, and sending never creates one. At
 * most `dailyLimit` per wallet per rolling 24 hours: the count and the insert run under a
 * per-wallet transaction lock, so concurrent sends cannot exceed it; past it, 429 `rate_limited`
 * with `Retry-After` = seconds until the oldest counted message leaves the window.
 */
export async function submitPlatformFeedback(
  sql: Sql,
  wallet: string,
  body: PlatformFeedbackBody,
  dailyLimit: number,
  /** A fixed `Retry-After` (Revision A: one day) instead of the time until a slot frees. */
  fixedRetryAfterSeconds?: number,
): Promise<PlatformFeedbackCreated> {
  const address = normaliseAddress(wallet);
  const contact = body.contact?.trim() ? body.contact.trim() : null;
  const outcome = await sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(hashtext(${`platform-feedback:${address}`}))`;
    const recent = await tx<{ createdAt: Date }[]>`
      select created_at from platform_feedback
      where wallet = ${address} and created_at > now() - make_interval(secs => ${DAY_SECONDS})
      order by created_at desc limit ${dailyLimit}`;
    if (recent.length >= dailyLimit) {
      const oldest = recent[recent.length - 1]!.createdAt.getTime();
      return {
        retryAfter: Math.max(1, Math.ceil((oldest + DAY_SECONDS * 1000 - Date.now()) / 1000)),
      };
    }
    const [row] = await tx<{ id: string }[]>`
      insert into platform_feedback (wallet, agent_id, username, text, contact)
      select ${address}, a.id, a.username, ${body.text}, ${contact}
      from (select 1) one left join agents a on a.address = ${address}
      returning id`;
    return { id: row!.id };
  });
  if ('retryAfter' in outcome) {
    if (fixedRetryAfterSeconds !== undefined) outcome.retryAfter = fixedRetryAfterSeconds;
    throw new AppError('rate_limited', {
      message: `at most ${dailyLimit} platform feedback messages per wallet per 24 hours`,
      retry_after: outcome.retryAfter,
      headers: { 'Retry-After': String(outcome.retryAfter) },
    });
  }
  return { feedback_id: outcome.id };
}
