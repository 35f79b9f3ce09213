import { randomUUID } from 'node:crypto';
import type { SettleResponse } from '@x402/core/types';
import type postgres from 'postgres';
import type { Sql } from '../../db/index.js';
import type { InlineSettlement } from '../../x402/facilitator.js';
import type { VerifiedPayment } from '../../x402/guard.js';
import { chainOfNetwork } from '../../wire/chains.js';
import type { Fulfilment, JsonObject, PaidContext, SqlFragment } from './fulfilment.js';

/**
 * Every statement on payments and authorization nonces (`x402_payments`, `x402_nonces`), paid and
 * identity alike. The nonce table is the single-use record: a paid claim and an identity proof
 * each insert the (payer, nonce) pair, and its primary key lets only one of any number of
 * concurrent requests through.
 *
 * Payment states: `settling` (claimed, settle in flight) → `completed` (settled and fulfilled), or
 * `settled` (money moved, fulfilment still to run), `pending` (broadcast, outcome unknown),
 * `failed` (terminal), `released` (nothing moved; the nonce is free again).
 */
export type PaymentStatus =
  'settling' | 'pending' | 'settled' | 'completed' | 'failed' | 'released';

export interface PaymentRow {
  id: string;
  operation: string;
  resource: string;
  payer: string;
  nonce: string;
  network: string;
  asset: string;
  payTo: string;
  amountMicro: number;
  validBefore: Date;
  status: PaymentStatus;
  transaction: string | null;
  contextJson: string;
  settlementJson: string | null;
  resultJson: string | null;
  errorCode: string | null;
  errorReason: string | null;
  /** SHA-256 of what the authorization was used for (`PaymentProcessor.requestDigest`); null before migration 210. */
  requestDigest: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** States from which a settled payment may still be completed. */
const OPEN: PaymentStatus[] = ['settling', 'pending', 'released', 'settled'];

/** `claim` found the caller's precondition false: nothing was claimed or written. */
export class ClaimConditionFailed extends Error {
  constructor() {
    super('claim condition no longer holds');
  }
}

export interface ClaimInput {
  operation: string;
  payment: VerifiedPayment;
  context: JsonObject;
  /** A boolean SQL expression re-checked inside the claim statement. */
  condition?: SqlFragment;
  /** What the authorization is used for (hex SHA-256): a replay must match it. */
  requestDigest: string;
}

const json = (sql: Sql, v: unknown) => sql.json(v as postgres.JSONValue);

/**
 * What a payment row keeps of the signed payload (`payload`): the proof, i.e. the EIP-3009
 * authorization exactly as the payer sent it and its signature. The rest of the x402 payload is
 * already the row's own columns: `accepted` is pinned to the requirement this server issued
 * (network, asset, pay_to, amount_micro; the item bound in `extra` is in `context`) and `resource`
 * is `resource`. Keeping it once also keeps the row under Postgres's TOAST threshold (about 2 KB),
 * so a purchase no longer pays for a compression attempt on every insert.
 */
function signedProof(p: VerifiedPayment): unknown {
  return p.payload.payload;
}

/**
 * Where the values of a nonce row come from: one authorization's (bound parameters; `validBefore`
 * as a Date, or as unix seconds the way an identity proof carries it), or every row of an earlier
 * CTE of the same statement, which has the columns payer, nonce, resource and valid_before.
 */
type NonceValues =
  | { payer: string; nonce: string; resource: string; validBefore: Date | number }
  | { rowsOf: 'done' | 'settled' };

interface NonceInsertOptions {
  /** A boolean SQL expression: when false, no row is inserted. */
  when?: SqlFragment;
  /**
   * On a nonce already held: `'do nothing'` inserts nothing (no row returned), `'fail'` fails the
   * whole statement (the one-statement purchase relies on that to write nothing).
   */
  onConflict: 'do nothing' | 'fail';
  /** Return `1` per inserted row: for a CTE that later writes depend on, or for the caller. */
  returning?: boolean;
}

/**
 * THE insert into `x402_nonces` (the single-use record), as a fragment for a statement or a CTE
 * body. Every claim of a nonce, paid or identity, goes through here.
 */
function nonceInsert(
  sql: Sql,
  kind: 'paid' | 'identity',
  values: NonceValues,
  { when, onConflict, returning = false }: NonceInsertOptions,
): SqlFragment {
  const kindValue = kind === 'paid' ? sql`'paid'` : sql`'identity'`;
  const row =
    'rowsOf' in values
      ? sql`payer, nonce, ${kindValue}, resource, valid_before from ${sql(values.rowsOf)}`
      : sql`${values.payer}, ${values.nonce}, ${kindValue}, ${values.resource}, ${
          values.validBefore instanceof Date
            ? sql`${values.validBefore}::timestamptz`
            : sql`to_timestamp(${values.validBefore})`
        }`;
  // each clause on its own line, none when absent: the purchase statement's text stays as it was
  const where = when
    ? sql`
        where ${when}`
    : sql``;
  const conflict =
    onConflict === 'do nothing'
      ? sql`
        on conflict do nothing`
      : sql``;
  const inserted = returning
    ? sql`
        returning 1`
    : sql``;
  return sql`insert into x402_nonces (payer, nonce, kind, resource, valid_before)
        select ${row}${where}${conflict}${inserted}`;
}

export class PaymentStore {
  constructor(private readonly sql: Sql) {}

  private cols() {
    return this.sql`
      id, operation, resource, payer, nonce, network, asset, pay_to, amount_micro, valid_before, status,
      transaction, context::text as context_json, settlement::text as settlement_json,
      result::text as result_json, error_code, error_reason, request_digest, created_at, updated_at`;
  }

  async find(payer: string, nonce: string): Promise<PaymentRow | undefined> {
    const [row] = await this.sql<PaymentRow[]>`
      select ${this.cols()} from x402_payments where payer = ${payer} and nonce = ${nonce}`;
    return row;
  }

  async byId(id: string): Promise<PaymentRow | undefined> {
    const [row] = await this.sql<
      PaymentRow[]
    >`select ${this.cols()} from x402_payments where id = ${id}`;
    return row;
  }

  /** True when this authorization has a claim that was not released (a retry, not a new payment). */
  async isClaimed(payer: string, nonce: string): Promise<boolean> {
    const [row] = await this.sql`
      select 1 from x402_payments where payer = ${payer} and nonce = ${nonce} and status <> 'released'`;
    return Boolean(row);
  }

  /**
   * Atomically claims the nonce and records the payment `settling`, in one statement with the
   * caller's condition; undefined when another request (or an identity proof) holds the nonce.
   * Throws ClaimConditionFailed (nothing written) when the condition is false.
   */
  async claim(input: ClaimInput): Promise<PaymentRow | undefined> {
    const { sql } = this;
    const p = input.payment;
    const [row] = await sql<Array<PaymentRow & { claimAllowed: boolean }>>`
      with pre as (
        select (${input.condition ?? sql`true`}) as ok
      ), claimed as (
        ${nonceInsert(sql, 'paid', p, { when: sql`(select ok from pre)`, onConflict: 'do nothing', returning: true })}
      ), ins as (
        insert into x402_payments (operation, resource, payer, nonce, network, asset, pay_to, amount_micro,
                                   valid_before, payload, context, status, request_digest)
        select ${input.operation}, ${p.resource}, ${p.payer}, ${p.nonce}, ${p.requirement.network},
               ${p.requirement.asset}, ${p.requirement.payTo}, ${p.amountMicro}::bigint,
               ${p.validBefore}::timestamptz, ${json(sql, signedProof(p))}::jsonb,
               ${json(sql, input.context)}::jsonb, 'settling', ${input.requestDigest}
        where exists (select 1 from claimed)
        on conflict (payer, nonce) do update
          set operation = excluded.operation, resource = excluded.resource, network = excluded.network,
              asset = excluded.asset, pay_to = excluded.pay_to, amount_micro = excluded.amount_micro,
              valid_before = excluded.valid_before, payload = excluded.payload, requirements = null,
              context = excluded.context, status = 'settling', request_digest = excluded.request_digest,
              transaction = null, settlement = null, result = null, error_code = null,
              error_reason = null, updated_at = now()
          where x402_payments.status = 'released'
        returning ${this.cols()}
      )
      select coalesce((select ok from pre), false) as claim_allowed, ins.*
      from (select 1) as one left join ins on true`;
    if (!row?.claimAllowed) throw new ClaimConditionFailed();
    if (row.id === null) return undefined;
    const { claimAllowed: _allowed, ...claimed } = row;
    return claimed;
  }

  /**
   * The whole paid operation in ONE statement, for a facilitator whose ledger is in this database:
   * claims the nonce (with the caller's condition), moves the money (the facilitator's CTEs), runs
   * the fulfilment and records the payment `completed` with its settlement and result, all or
   * nothing. `claimAllowed` false: the condition no longer holds and nothing was written. Throws,
   * having written nothing, on any conflict (a nonce claimed or settled before, an earlier
   * released claim, an overdraft): the stepwise path (`claim`, settle, `complete`) answers those.
   */
  async claimAndComplete(
    input: ClaimInput,
    settlement: InlineSettlement,
    fulfil: Fulfilment,
  ): Promise<{ claimAllowed: boolean; id: string; resultJson: string | null }> {
    const { sql } = this;
    const p = input.payment;
    const id = randomUUID();
    const tx = settlement.response.transaction;
    const { writes, result, committed } = fulfil(sql, {
      paymentId: id,
      operation: input.operation,
      resource: p.resource,
      payer: p.payer,
      chain: p.chain,
      network: p.requirement.network,
      asset: p.requirement.asset,
      payTo: p.requirement.payTo,
      amountMicro: p.amountMicro,
      transaction: tx,
      context: input.context,
    });
    const [row] = await sql<{ claimAllowed: boolean; resultJson: string | null }[]>`
      with pre as (
        select (${input.condition ?? sql`true`}) as ok
      ), ledger_gate as (
        ${nonceInsert(sql, 'paid', p, { when: sql`(select ok from pre)`, onConflict: 'fail', returning: true })}
      ), ${settlement.writes}, paid as (
        select ${id}::uuid as id, 'settling'::text as status from ledger_transfer
      ), ${writes}, done as (
        insert into x402_payments (id, operation, resource, payer, nonce, network, asset, pay_to, amount_micro,
                                   valid_before, payload, context, status, transaction, settlement, result,
                                   request_digest)
        select paid.id, ${input.operation}, ${p.resource}, ${p.payer}, ${p.nonce}, ${p.requirement.network},
               ${p.requirement.asset}, ${p.requirement.payTo}, ${p.amountMicro}::bigint,
               ${p.validBefore}::timestamptz, ${json(sql, signedProof(p))}::jsonb,
               ${json(sql, input.context)}::jsonb, 'completed', ${tx},
               ${json(sql, settlement.response)}::jsonb, ${result}, ${input.requestDigest}
        from paid
        returning result::text as result_json
      )
      select coalesce((select ok from pre), false) as claim_allowed,
             (select result_json from done) as result_json`;
    if (row!.resultJson !== null) committed?.();
    return { claimAllowed: row!.claimAllowed, id, resultJson: row!.resultJson };
  }

  /**
   * THE completing statement: locks the payment while it is still open, runs the operation's
   * fulfilment writes, records the settlement and the result, and re-spends the nonce if a
   * reconciler had released it meanwhile (money moved: the nonce is used on chain either way).
   * Returns the stored result, or undefined when the payment was no longer open (completed by a
   * concurrent request or the reconciler: read it with `byId`).
   */
  async complete(
    row: PaymentRow,
    settlement: SettleResponse,
    fulfil: Fulfilment,
  ): Promise<string | undefined> {
    const { sql } = this;
    const { writes, result, committed } = fulfil(sql, paidContext(row, settlement.transaction));
    const [done] = await sql<{ resultJson: string }[]>`
      with paid as (
        select id, status from x402_payments where id = ${row.id} and status = any(${OPEN}) for update
      ), ${writes}, done as (
        update x402_payments p set status = 'completed', transaction = ${settlement.transaction},
          settlement = ${json(sql, settlement)}, result = ${result}, error_code = null,
          error_reason = null, updated_at = now()
        from paid where p.id = paid.id
        returning p.payer, p.nonce, p.resource, p.valid_before, p.result::text as result_json,
                  paid.status as was
      ), spent as (
        ${nonceInsert(sql, 'paid', { rowsOf: 'done' }, { when: sql`was = 'released'`, onConflict: 'do nothing' })}
      )
      select result_json from done`;
    if (done) committed?.();
    return done?.resultJson;
  }

  /** Money moved but the fulfilment could not run yet: the settlement is kept for the reconciler. */
  async markSettled(id: string, settlement: SettleResponse): Promise<void> {
    await this.sql`
      with settled as (
        update x402_payments set status = 'settled', transaction = ${settlement.transaction},
          settlement = ${json(this.sql, settlement)}, updated_at = now()
        where id = ${id} and status in ('settling', 'pending', 'released')
        returning payer, nonce, resource, valid_before
      )
      ${nonceInsert(this.sql, 'paid', { rowsOf: 'settled' }, { onConflict: 'do nothing' })}`;
  }

  async markPending(id: string, transaction: string, reason: string): Promise<void> {
    await this.sql`
      update x402_payments set status = 'pending', transaction = ${transaction || null},
        error_reason = ${reason}, updated_at = now()
      where id = ${id} and status = 'settling'`;
  }

  async markFailed(id: string, reason: string): Promise<void> {
    await this.sql`
      update x402_payments set status = 'failed', error_code = 'payment_settlement_failed',
        error_reason = ${reason}, updated_at = now()
      where id = ${id} and status = 'settling'`;
  }

  /** Nothing moved: the claim goes and the nonce is free again. */
  async release(id: string): Promise<void> {
    await this.sql`
      with r as (
        update x402_payments set status = 'released', updated_at = now()
        where id = ${id} and status in ('settling', 'pending') returning payer, nonce
      )
      delete from x402_nonces n using r where n.payer = r.payer and n.nonce = r.nonce`;
  }

  /** Claims whose outcome a request never learnt or never recorded, oldest first. */
  async unfinished(staleSeconds: number, limit: number): Promise<PaymentRow[]> {
    return this.sql<PaymentRow[]>`
      select ${this.cols()} from x402_payments
      where status = 'pending'
         or (status in ('settling', 'settled') and updated_at <= now() - make_interval(secs => ${staleSeconds}))
      order by updated_at limit ${limit}`;
  }

  /** Claims still unresolved after `olderThanSeconds` (money may have moved): for operators. */
  async unresolved(olderThanSeconds: number): Promise<PaymentRow[]> {
    return this.sql<PaymentRow[]>`
      select ${this.cols()} from x402_payments
      where status in ('settling', 'pending', 'settled')
        and created_at <= now() - make_interval(secs => ${olderThanSeconds})
      order by created_at`;
  }

  /** The single-use record of an authorization (paid or identity), if this server holds one. */
  async claimOf(
    payer: string,
    nonce: string,
  ): Promise<{ kind: string; resource: string } | undefined> {
    const [row] = await this.sql<{ kind: string; resource: string }[]>`
      select kind, resource from x402_nonces where payer = ${payer} and nonce = ${nonce}`;
    return row;
  }

  /** Single use of a zero-value identity proof; false when the nonce was seen before. */
  async claimIdentityNonce(q: {
    payer: string;
    nonce: string;
    resource: string;
    validBefore: number;
  }): Promise<boolean> {
    const [claimed] = await this.sql`
      ${nonceInsert(this.sql, 'identity', q, { onConflict: 'do nothing', returning: true })}`;
    return Boolean(claimed);
  }

  /** Identity nonces past their window can never verify again: forget them. */
  async pruneIdentityNonces(): Promise<number> {
    const pruned = await this.sql`
      delete from x402_nonces where kind = 'identity' and valid_before < now() - interval '1 hour'`;
    return pruned.count;
  }
}

export function paidContext(r: PaymentRow, transaction = r.transaction ?? ''): PaidContext {
  return {
    paymentId: r.id,
    operation: r.operation,
    resource: r.resource,
    payer: r.payer,
    chain: chainOfNetwork(r.network)!,
    network: r.network,
    asset: r.asset,
    payTo: r.payTo,
    amountMicro: r.amountMicro,
    transaction,
    context: JSON.parse(r.contextJson) as JsonObject,
  };
}
