import type { SettleResponse } from '@x402/core/types';
import type { Sql } from '../../db/index.js';
import { prepared, recording } from '../../db/statement.js';
import { completion, type Completing } from './completion.js';
import type { Fulfilment } from './fulfilment.js';
import {
  forgetFailedIdentifier,
  identifiedPayment,
  identifierInsert,
  pruneIdentifiers,
  type IdentifiedPayment,
} from './identifiers.js';
import { nonceInsert } from './nonces.js';
import {
  ClaimConditionFailed,
  json,
  signedProof,
  undecidedFailure,
  unresolvedPayment,
  type ClaimInput,
  type PaymentRow,
} from './rows.js';

export {
  ClaimConditionFailed,
  paidContext,
  unresolvedPayment,
  type PaymentRow,
  type PaymentStatus,
} from './rows.js';
export type { ClaimInput } from './rows.js';
export type { Completing } from './completion.js';

/**
 * Every statement on payments and authorization nonces (`x402_payments`, `x402_nonces`), paid and
 * identity alike; the completing one is assembled in completion.ts, the rows and their states are
 * in rows.ts. The nonce table is the single-use record: a paid claim and an identity proof each
 * insert the (payer, nonce) pair, and its primary key lets only one of any number of concurrent
 * requests through.
 */
export class PaymentStore {
  /** The completing statement's fragments are recorded and sent prepared (src/db/statement.ts). */
  private readonly recorded: Sql;

  constructor(private readonly sql: Sql) {
    this.recorded = recording(sql);
  }

  private cols() {
    return this.sql`
      id, operation, resource, payer, nonce, network, asset, pay_to, amount_micro, valid_before, status,
      transaction, context::text as context_json, settlement::text as settlement_json,
      result::text as result_json, error_code, error_reason, request_digest, failure_final_at, rechecked_at,
      answered_at, created_at, updated_at, xmin::text as version`;
  }

  /** Only the row as it was read (`PaymentRow.version`), when `asRead` is given. */
  private asRead(asRead: { version: string } | undefined) {
    return asRead ? this.sql`and xmin::text = ${asRead.version}` : this.sql``;
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
   * Throws ClaimConditionFailed (nothing written) when the condition is false. With a
   * `payment-identifier` id the statement also records the id, and fails whole (nothing written;
   * `isIdentifierTaken`) when this payer's id is held already.
   */
  async claim(input: ClaimInput): Promise<PaymentRow | undefined> {
    const { sql } = this;
    const p = input.payment;
    const identified = p.paymentIdentifier
      ? sql`, identified as (
        ${identifierInsert(sql, p.paymentIdentifier, { rowsOf: 'ins' })}
      )`
      : sql``;
    const [row] = await sql<Array<PaymentRow & { claimAllowed: boolean }>>`
      with pre as (
        select (${input.condition?.(sql) ?? sql`true`}) as ok
      ), claimed as (
        ${nonceInsert(sql, 'paid', p, { when: sql`(select ok from pre)`, onConflict: 'do nothing', returning: true })}
      ), ins as (
        insert into x402_payments (operation, resource, payer, nonce, network, asset, pay_to, amount_micro,
                                   valid_before, payload, context, status, request_digest)
        select ${input.operation}, ${p.resource}, ${p.payer}, ${p.nonce}, ${p.requirement.network},
               ${p.requirement.asset}, ${p.requirement.payTo}, ${p.amount}::bigint,
               ${p.validBefore}::timestamptz, ${json(sql, signedProof(p))}::jsonb,
               ${json(sql, input.context)}::jsonb, 'settling', ${input.requestDigest}
        where exists (select 1 from claimed)
        on conflict (payer, nonce) do update
          set operation = excluded.operation, resource = excluded.resource, network = excluded.network,
              asset = excluded.asset, pay_to = excluded.pay_to, amount_micro = excluded.amount_micro,
              valid_before = excluded.valid_before, payload = excluded.payload, requirements = null,
              context = excluded.context, status = 'settling', request_digest = excluded.request_digest,
              transaction = null, settlement = null, result = null, error_code = null,
              error_reason = null, rechecked_at = null, updated_at = now()
          where x402_payments.status = 'released'
        returning ${this.cols()}
      )${identified}
      select coalesce((select ok from pre), false) as claim_allowed, ins.*
      from (select 1) as one left join ins on true`;
    if (!row?.claimAllowed) throw new ClaimConditionFailed();
    if (row.id === null) return undefined;
    const { claimAllowed: _allowed, ...claimed } = row;
    return claimed;
  }

  /**
   * Completes a paid operation in ONE statement (src/domain/payments/completion.ts): inline, the
   * claim, the facilitator's transfer, the fulfilment and the `completed` record, all or nothing
   * (`claimAllowed` false: the condition no longer holds and nothing was written; it throws,
   * having written nothing, on any conflict: a nonce claimed or settled before, an earlier
   * released claim, an overdraft, which the stepwise path answers); stepwise, the claimed row
   * while still open (`resultJson` undefined when it was not: completed by a concurrent request
   * or the reconciler, read it with `byId`), re-spending the nonce if a reconciler released it.
   */
  async completion(
    how: Completing,
    fulfil: Fulfilment,
  ): Promise<{ claimAllowed: boolean; id: string; resultJson: string | undefined }> {
    const { statement, id, committed } = completion(this.recorded, how, fulfil);
    // its equal values bound once (26 distinct values in 65 places for a repeat buyer's purchase)
    const [row] = await prepared<{ claimAllowed?: boolean; resultJson: string | null }[]>(
      this.sql,
      statement,
      { merge: true },
    );
    const resultJson = row?.resultJson ?? undefined;
    if (resultJson !== undefined) committed?.();
    return { claimAllowed: row?.claimAllowed ?? true, id, resultJson };
  }

  /**
   * Money moved but the fulfilment could not run yet: the settlement is kept for the reconciler.
   * With `asRead` (a recheck's), only the row as it was read. The row's new version, or undefined
   * when nothing was written.
   */
  async markSettled(
    id: string,
    settlement: SettleResponse,
    asRead?: { version: string },
  ): Promise<string | undefined> {
    const [row] = await this.sql<{ version: string }[]>`
      with settled as (
        update x402_payments set status = 'settled', transaction = ${settlement.transaction},
          settlement = ${json(this.sql, settlement)}, updated_at = now()
        where id = ${id} and status in ('settling', 'pending', 'released') ${this.asRead(asRead)}
        returning payer, nonce, resource, valid_before, xmin::text as version
      ), spent as (
        ${nonceInsert(this.sql, 'paid', { rowsOf: 'settled' }, { onConflict: 'do nothing' })}
      )
      select version from settled`;
    return row?.version;
  }

  async markPending(id: string, transaction: string, reason: string): Promise<void> {
    await this.sql`
      update x402_payments set status = 'pending', transaction = ${transaction || null},
        error_reason = ${reason}, rechecked_at = null, updated_at = now()
      where id = ${id} and status = 'settling'`;
  }

  /**
   * The facilitator answered the settlement as failed. A transaction hash it sent with the failure
   * (it broadcast, then gave up) is kept: operators see it, and the recheck asks for its receipt
   * before the token's record of the nonce.
   */
  async markFailed(id: string, reason: string, transaction?: string): Promise<void> {
    await this.sql`
      update x402_payments set status = 'failed', error_code = 'payment_settlement_failed',
        error_reason = ${reason}, transaction = ${transaction || null}, updated_at = now()
      where id = ${id} and status = 'settling'`;
  }

  /**
   * A payment failed at settlement whose transfer was mined after all: `settled` with the chain's
   * settlement, to be completed (`completion`). Only while undecided; the nonce stays spent.
   */
  async reopenFailed(id: string, settlement: SettleResponse): Promise<void> {
    await this.sql`
      with settled as (
        update x402_payments set status = 'settled', transaction = ${settlement.transaction},
          settlement = ${json(this.sql, settlement)}, updated_at = now()
        where id = ${id} and status = 'failed' and error_code = 'payment_settlement_failed'
          and failure_final_at is null
        returning payer, nonce, resource, valid_before
      )
      ${nonceInsert(this.sql, 'paid', { rowsOf: 'settled' }, { onConflict: 'do nothing' })}`;
  }

  /**
   * A completed payment's first answer, for a replay that proves nothing the chain did not show:
   * true when no request had been answered with its result yet and this one now is (a payment
   * completed out of band: the reconciler, a crash recovery, a settlement that was pending); false
   * once one has been (a concurrent caller took it), and always for a payment signed with a
   * payment identifier: its buyer's retry carries the id and is answered with it, so a copy without
   * it is never the buyer's (`answered` marks such an answer).
   */
  async takeFirstAnswer(id: string): Promise<boolean> {
    const taken = await this.sql`
      update x402_payments p set answered_at = now()
      where p.id = ${id} and p.status = 'completed' and p.answered_at is null
        and not exists (select 1 from x402_payment_identifiers i where i.payment_id = p.id)`;
    return taken.count > 0;
  }

  /**
   * A completed payment answered to a request that proved its payer (its first request's payment
   * identifier, a fresh authorization): its first answer is given, so no later copy of the
   * authorization takes it.
   */
  async answered(id: string): Promise<void> {
    await this.sql`
      update x402_payments set answered_at = now()
      where id = ${id} and status = 'completed' and answered_at is null`;
  }

  /**
   * A failure at settlement that can never move money: final, never asked about again. True when
   * this call made it final (false: it already was, e.g. by a concurrent reconciler pass).
   */
  async markFailureFinal(id: string): Promise<boolean> {
    const made = await this.sql`
      update x402_payments set failure_final_at = now(), rechecked_at = now()
      where id = ${id} and status = 'failed' and failure_final_at is null`;
    return made.count > 0;
  }

  /**
   * A payment still unresolved (a claim pending or abandoned, a failure at settlement undecided)
   * was asked about now and stays so: the next ask waits its turn (`unfinished`). With `asRead`,
   * only the row as it was read (its `version`): one written since is not what was asked about.
   */
  async markRechecked(id: string, asRead?: { version: string }): Promise<void> {
    await this.sql`
      update x402_payments set rechecked_at = now()
      where id = ${id} and ${unresolvedPayment(this.sql)} ${this.asRead(asRead)}`;
  }

  /**
   * Nothing moved: the claim goes, and the nonce and any payment-identifier id are free again.
   * True when this call released it (false: no longer open, e.g. a concurrent pass released it).
   * With `asRead` (a recheck's release), only the row as it was read: the recheck decided on
   * that claim, and a claim released and taken again since (a buyer's retry settling it now, in
   * this process or another) is not the one it decided on; false then, and nothing is written.
   */
  async release(id: string, asRead?: { version: string }): Promise<boolean> {
    const [row] = await this.sql<{ released: boolean }[]>`
      with r as (
        update x402_payments set status = 'released', updated_at = now()
        where id = ${id} and status in ('settling', 'pending') ${this.asRead(asRead)} returning id, payer, nonce
      ), ids as (
        delete from x402_payment_identifiers i using r where i.payment_id = r.id
      ), n as (
        delete from x402_nonces n using r where n.payer = r.payer and n.nonce = r.nonce
      )
      select exists (select 1 from r) as released`;
    return row?.released ?? false;
  }

  /** The payment a payer's `payment-identifier` id first came with, if the id is known. */
  identified(payer: string, identifier: string): Promise<IdentifiedPayment | undefined> {
    return identifiedPayment(this.sql, payer, identifier);
  }

  /** Frees an id whose payment failed at settlement, for a fresh retry (identifiers.ts). */
  forgetFailedIdentifier(payer: string, identifier: string, paymentId: string): Promise<void> {
    return forgetFailedIdentifier(this.sql, payer, identifier, paymentId);
  }

  /** Ids kept `retentionSeconds` past their payment's window: forgotten. */
  prunePaymentIdentifiers(retentionSeconds: number): Promise<number> {
    return pruneIdentifiers(this.sql, retentionSeconds);
  }

  /**
   * Claims whose outcome a request never learnt or never recorded (pending, or settling/settled
   * for `staleSeconds`), and failures at settlement not yet known final (asked at most once per
   * `staleSeconds`), least recently looked at first: one that stays unresolved records when it
   * was asked (`rechecked_at`, `markRechecked`) and goes behind the others, so stuck claims rotate
   * instead of filling every pass. Claims last written before `orphanedBefore` (embedded: before
   * this process opened the database, so their process is gone) count as stale at once (those
   * this process's requests hold are skipped by the reconciler as it reaches them).
   */
  async unfinished(
    staleSeconds: number,
    limit: number,
    { orphanedBefore }: { orphanedBefore?: Date | undefined } = {},
  ): Promise<PaymentRow[]> {
    const { sql } = this;
    const stale = sql`now() - make_interval(secs => ${staleSeconds})`;
    const gone = orphanedBefore ? sql`or updated_at < ${orphanedBefore}::timestamptz` : sql``;
    return sql<PaymentRow[]>`
      select ${this.cols()} from x402_payments
      where (status = 'pending'
          or (status in ('settling', 'settled') and (updated_at <= ${stale} ${gone}))
          or (${undecidedFailure(sql)} and coalesce(rechecked_at, updated_at) <= ${stale}))
      order by coalesce(rechecked_at, updated_at) limit ${limit}`;
  }

  /**
   * Claims still unresolved after `olderThanSeconds` (money may have moved), failures at
   * settlement not yet known final among them: for operators.
   */
  async unresolved(olderThanSeconds: number): Promise<PaymentRow[]> {
    const { sql } = this;
    return sql<PaymentRow[]>`
      select ${this.cols()} from x402_payments
      where ${unresolvedPayment(sql)}
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
