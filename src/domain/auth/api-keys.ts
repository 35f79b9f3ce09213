import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Db } from '../../db/index.js';
import type { Agent } from '../accounts/accounts.js';

/**
 * API keys (spec 5.1): `mk_<key id>_<secret>`. The key id (8 random bytes, hex) finds the row; the
 * secret (32 random bytes, base64url) is stored only as its SHA-256 and compared in constant
 * time. One key per agent: issuing a key replaces the previous one at once. Keys are never logged
 * (src/logger.ts redacts the header) and shown only in the response that issues them.
 */
const KEY_RE = /^mk_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;

const hashSecret = (secret: string) => createHash('sha256').update(secret, 'utf8').digest();

/** Issues a fresh key for the agent, replacing any previous one. Returns the key (shown once). */
export async function issueApiKey(sql: Db, agentId: string): Promise<string> {
  const keyId = randomBytes(8).toString('hex');
  const secret = randomBytes(32).toString('base64url');
  await sql`
    insert into api_keys (agent_id, key_id, secret_hash) values (${agentId}, ${keyId}, ${hashSecret(secret)})
    on conflict (agent_id) do update
      set key_id = excluded.key_id, secret_hash = excluded.secret_hash, created_at = now()`;
  return `mk_${keyId}_${secret}`;
}

const NO_HASH = Buffer.alloc(32);

/** The agent a key belongs to, or undefined for a malformed, unknown or replaced key. */
export async function agentByApiKey(sql: Db, key: string): Promise<Agent | undefined> {
  const m = KEY_RE.exec(key.trim());
  if (!m) return undefined;
  const [row] = await sql<Array<Agent & { secretHash: Buffer }>>`
    select a.id, a.address, a.username, a.username_type, a.sales_chains, a.created_at, k.secret_hash
    from api_keys k join agents a on a.id = k.agent_id where k.key_id = ${m[1]!}`;
  const ok = timingSafeEqual(hashSecret(m[2]!), row?.secretHash ?? NO_HASH);
  if (!row || !ok) return undefined;
  const { secretHash: _hash, ...agent } = row;
  return agent;
}
