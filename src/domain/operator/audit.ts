import type { Db } from '../../db/index.js';

/** One operator action as the audit trail keeps it: who, when, what, to what, why. */
export interface AuditEntry {
  id: number;
  at: string;
  actor: string;
  action: string;
  target: string | null;
  reason: string | null;
  detail: Record<string, unknown>;
}

/** Records an action; call it with the transaction of the action so both commit or neither. */
export async function recordAudit(
  sql: Db,
  e: { actor: string; action: string; target?: string; reason?: string; detail?: object },
): Promise<void> {
  await sql`
    insert into operator_audit (actor, action, target, reason, detail)
    values (${e.actor}, ${e.action}, ${e.target ?? null}, ${e.reason ?? null},
            ${sql.json((e.detail ?? {}) as never)})`;
}

export async function recentAudit(sql: Db, limit = 50): Promise<AuditEntry[]> {
  const rows = await sql<
    {
      id: string;
      at: Date;
      actor: string;
      action: string;
      target: string | null;
      reason: string | null;
      detail: Record<string, unknown>;
    }[]
  >`
    select id, at, actor, action, target, reason, detail from operator_audit
    order by at desc, id desc limit ${limit}`;
  return rows.map((r) => ({ ...r, id: Number(r.id), at: r.at.toISOString() }));
}
