/**
 * The x402 `payment-identifier` extension (specs/extensions/payment_identifier.md), our side of
 * it: every paid prompt declares it (optional for the client), and a payment's id is read here
 * and checked for format before any other work. What an id answers (the first payment's outcome,
 * or 409 for another purchase) is the domain's: src/domain/payments/identifiers.ts.
 */
import type { PaymentPayload } from '@x402/core/types';
import {
  declarePaymentIdentifierExtension,
  extractPaymentIdentifier,
  isValidPaymentId,
  PAYMENT_IDENTIFIER,
} from '@x402/extensions/payment-identifier';
import { AppError } from '../errors.js';

/**
 * The `payment-identifier` id a payload carries (@x402/extensions' extraction), undefined when it
 * carries none; 400 `invalid_payment_identifier` for one that is malformed, before any other work.
 * The echoed `schema` is not compiled (it is the client's JSON; the format rule is the package's).
 */
export function paymentIdentifierOf(payload: PaymentPayload): string | undefined {
  const ext = payload.extensions?.[PAYMENT_IDENTIFIER];
  if (ext === undefined || ext === null) return undefined;
  const info = typeof ext === 'object' ? (ext as { info?: unknown }).info : undefined;
  // an echo of our declaration without an id: the client chose not to send one
  if (typeof info === 'object' && info !== null && !('id' in info)) return undefined;
  const id = extractPaymentIdentifier(payload, false);
  if (id === null || !isValidPaymentId(id)) throw new AppError('invalid_payment_identifier');
  return id;
}

/**
 * The `payment-identifier` declaration every paid prompt carries (optional for the client). `lean`
 * (the acquire prompt, whose header must also carry the bazaar and sign-in-with-x entries within
 * 8 KB) leaves out its JSON schema, which clients do not read to add an id (the package's client
 * helper needs only `info.required`), as ./siwx.ts does for its own.
 */
export function paymentIdentifierDeclaration(lean: boolean): Record<string, unknown> {
  const declared = declarePaymentIdentifierExtension(false);
  return { [PAYMENT_IDENTIFIER]: lean ? { info: declared.info } : declared };
}
