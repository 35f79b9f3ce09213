import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Db } from '../../db/index.js';

/**
 * The operator's credential (issue 26): the ADMIN_TOKEN, checked in constant time, and the console's
 * sessions. A session id is 32 random bytes carried in an HttpOnly cookie; only its SHA-256 is
 * stored, so every replica on one database recognises it and a leaked table signs nobody in.
 */

const sha256 = (s: string) => createHash('sha256').update(s).digest();

/** True when `presented` is the operator token (both hashed first: equal lengths, constant time). */
export function isOperatorToken(expected: string, presented: string | undefined): boolean {
  if (!presented) return false;
  return timingSafeEqual(sha256(expected), sha256(presented));
}

/** The name an action is recorded under: the token has one holder, "operator". */
export const TOKEN_ACTOR = 'operator';

export async function startSession(
  sql: Db,
  actor: string,
  ttlSeconds: number,
): Promise<{ id: string; expiresAt: Date }> {
  const id = randomBytes(32).toString('base64url');
  const [row] = await sql<{ expiresAt: Date }[]>`
    insert into operator_sessions (id_hash, actor, expires_at)
    values (${sha256(id).toString('hex')}, ${actor}, now() + make_interval(secs => ${ttlSeconds}))
    returning expires_at`;
  // Sign-ins are rare: expired rows go here instead of in a periodic task.
  await sql`delete from operator_sessions where expires_at < now()`;
  return { id, expiresAt: row!.expiresAt };
}

/** The actor of a live session, or undefined (unknown, expired or signed out). */
export async function sessionActor(sql: Db, id: string | undefined): Promise<string | undefined> {
  if (!id || id.length > 128) return undefined;
  const [row] = await sql<{ actor: string }[]>`
    select actor from operator_sessions
    where id_hash = ${sha256(id).toString('hex')} and expires_at > now()`;
  return row?.actor;
}

export async function endSession(sql: Db, id: string | undefined): Promise<void> {
  if (!id) return;
  await sql`delete from operator_sessions where id_hash = ${sha256(id).toString('hex')}`;
}
