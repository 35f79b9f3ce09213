import type postgres from 'postgres';
import type { SqlFragment } from '../../db/index.js';
import type { Pieces } from '../../db/pieces.js';
import type { PaidOffer, VerifiedPayment } from '../../x402/guard.js';
import type { Chain } from '../../wire/chains.js';

export type JsonObject = Record<string, unknown>;

/** A SQL fragment (postgres.js tagged template) spliced into a larger statement. */
export type { SqlFragment };

/** What a fulfilment knows of the payment it completes. */
export interface PaidContext<C extends JsonObject = JsonObject> {
  paymentId: string;
  operation: string;
  resource: string;
  payer: string;
  chain: Chain;
  network: string;
  asset: string;
  payTo: string;
  amountMicro: number;
  transaction: string;
  /** What the operation stored with its claim (the reserved order or item id, legal terms...). */
  context: C;
}

/**
 * What one paid operation does once its payment settled: ONE function per operation (purchase,
 * listing fee), whose writes run in the very statement that moves the payment to `completed`,
 * so the outcome and the operation commit together or not at all, on the request path and in the
 * reconciler alike.
 *
 * - `pieces`: the operation's writes, named pieces (src/db/pieces.ts) given the relation `paid`
 *   that the completing statement names (src/domain/payments/completion.ts): one row while this
 *   statement completes the payment (its row is locked), none when it was completed already.
 *   Every write must select from `paid` (or from a piece that does), so nothing is ever written
 *   twice.
 * - `result`: a jsonb SQL expression (it may read the pieces) stored with the payment and
 *   returned to every retry of the same authorization.
 *
 * - `committed`: called once the statement that ran these writes committed and completed the
 *   payment (not when it failed, nor when the payment was completed already).
 *
 * A statement that fails (say a constraint) changes nothing; the processor records the settlement
 * and runs the fulfilment again (the reconciler too), so it must build fresh values each call.
 */
export type Fulfilment<C extends JsonObject = JsonObject> = (
  sql: postgres.Sql,
  ctx: PaidContext<C>,
) => { pieces: Pieces<string, 'paid'>; result: SqlFragment; committed?: () => void };

/**
 * The port through which a domain operation gets paid: given its offer, the transport answers
 * with a verified payment or ends the request with the 402 prompt (src/http/payment.ts). The
 * domain never reads a header or builds a prompt.
 */
export type Pay = ((offer: PaidOffer) => Promise<VerifiedPayment>) & {
  /**
   * Sign-in-with-x on an offer with `signIn`: the accepted signer, served without paying, or
   * undefined (no proof, or a payment too: payment wins); refusals end with the prompt.
   */
  signIn?: (offer: PaidOffer) => Promise<string | undefined>;
  /** The route's sign-in-with-x challenge (`extensions`), for an answer that is no 402 prompt. */
  signInChallenge?: () => Promise<Record<string, unknown>>;
  /**
   * The request's signed payment when its authorization already holds a paid claim on this
   * route (`resource`, default the route's own key): a retry, answered from that claim even when
   * the route no longer offers what it paid for (the listing is gone). Undefined otherwise.
   */
  claimed?: (resource?: string) => Promise<VerifiedPayment | undefined>;
};
