import { z } from 'zod';

/**
 * The error body every route answers (spec 7.1): `{ error: <catalog code>, message? }`, as
 * OpenAPI publishes it for each route's 4xx responses (src/errors.ts `AppError.toBody`).
 */
export const ErrorSchema = z
  .object({ error: z.string(), message: z.string().optional() })
  .describe('Error body: { error: <code>, message? }');

/**
 * The fields a client may read from an error body beyond the code: what `AppError.toBody` adds
 * for some codes (payment failures, rate limits, a pending settlement).
 */
export const ErrorDetailsSchema = ErrorSchema.partial().extend({
  reason: z.string().optional(),
  retry_after: z.number().optional(),
  transaction: z.string().optional(),
  network: z.string().optional(),
  /**
   * `payment_settlement_pending`, and a spent authorization (`payment_verification_failed`, reason
   * `invalid_exact_evm_nonce_already_used`): the order the payment is for.
   */
  order_id: z.string().optional(),
  /** As `order_id`, for a listing fee: the listing it is for. */
  item_id: z.string().optional(),
  /**
   * `payment_settlement_failed` on a remote rail: until then the transfer may still be mined (its
   * validBefore and the chain clock's grace), so a buyer signs nothing new before it.
   */
  decided_after: z.string().optional(),
});
export type ErrorDetails = z.infer<typeof ErrorDetailsSchema>;
