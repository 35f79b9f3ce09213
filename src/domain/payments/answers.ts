import type { SettleResponse } from '@x402/core/types';
import { AppError } from '../../errors.js';
import { encodePaymentResponseHeader } from '../../x402/codec.js';
import type { JsonObject } from './fulfilment.js';
import type { PaymentRow } from './rows.js';
import type { PaymentStore } from './store.js';

/** What a paid operation answers, and the errors a payment ends in (spec 7.1). */
export interface PaidResult<R extends JsonObject = JsonObject> {
  paymentId: string;
  result: R;
  settlement: SettleResponse;
  /** Value for the `PAYMENT-RESPONSE` header (base64 SettleResponse, @x402/core codec). */
  paymentResponseHeader: string;
  /** True when this answer repeats an earlier completion of the same authorization. */
  replayed: boolean;
}

export function answer<R extends JsonObject>(
  paymentId: string,
  resultJson: string,
  settlement: SettleResponse,
  replayed: boolean,
): PaidResult<R> {
  return {
    paymentId,
    result: JSON.parse(resultJson) as R,
    settlement,
    paymentResponseHeader: encodePaymentResponseHeader(settlement),
    replayed,
  };
}

/**
 * A completed authorization replayed without anything fresh: the request mints nothing (no
 * download link); the answer names the order or item, whose links come from the owner's own routes
 * (`GET /api/v1/orders/{uuid}` with an identity proof). `expired`: after its validity window;
 * `answered`: within it, once a request was answered with the result (the replay carries nothing
 * the chain did not make public; its first request's payment identifier would have been).
 */
export function spentAuthorization(
  row: PaymentRow,
  details?: (c: JsonObject) => JsonObject,
  freshLinks = 'GET /api/v1/orders/{order_id} and an identity proof',
  why: 'expired' | 'answered' = 'expired',
): AppError {
  const extra = details?.(JSON.parse(row.contextJson) as JsonObject);
  const spent =
    why === 'expired'
      ? 'this authorization was already used and its validity window has closed'
      : 'this authorization was already used and its result was already answered (the same signed payment sent again gets it only with its first payment-identifier id)';
  return new AppError('payment_verification_failed', {
    reason: 'invalid_exact_evm_nonce_already_used',
    message:
      `${spent}; the operation it paid for is done (see order_id or item_id). Fetch fresh links with ` +
      `${freshLinks}.`,
    ...(extra && { details: extra }),
  });
}

export function settlementCapacity(reason: string, retryAfterSeconds: number): AppError {
  const s = retryAfterSeconds;
  return new AppError('settlement_capacity', {
    reason,
    retry_after: s,
    headers: { 'Retry-After': String(s) },
  });
}

export function settlementPending(
  row: PaymentRow,
  transaction: string,
  details?: (c: JsonObject) => JsonObject,
): AppError {
  const extra = details?.(JSON.parse(row.contextJson) as JsonObject);
  return new AppError('payment_settlement_pending', {
    transaction,
    network: row.network,
    ...(extra && { details: extra }),
  });
}

/** The stored answer of a completed payment. */
export async function readCompleted<R extends JsonObject>(
  store: PaymentStore,
  id: string,
  replayed: boolean,
): Promise<PaidResult<R>> {
  const row = await store.byId(id);
  if (row?.status !== 'completed')
    throw new Error(`payment ${id} is ${row?.status}, not completed`);
  return answer<R>(
    id,
    row.resultJson!,
    JSON.parse(row.settlementJson!) as SettleResponse,
    replayed,
  );
}
