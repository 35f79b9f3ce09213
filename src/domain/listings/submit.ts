import { randomUUID } from 'node:crypto';
import type { Deps } from '../../deps.js';
import { AppError } from '../../errors.js';
import { paymentSignatureOf, type GuardRequest, type PaidOffer } from '../../x402/guard.js';
import { CHAINS, usdcToMicro } from '../chains.js';
import {
  checkDuplicates,
  checkListingCap,
  LISTING_FEE_OPERATION,
  listingContext,
  signListingInvoice,
  type ListingContext,
  type ListingResult,
} from './listings.js';
import type { ValidUpload } from './upload.js';

export interface SubmitResult {
  body: { item_id: string; status: string; invoice_url: string };
  paymentResponseHeader: string;
}

export function listingFeeOffer(deps: Pick<Deps, 'config' | 'platformPayTo'>): PaidOffer {
  const payTo = deps.platformPayTo;
  const amountMicro = usdcToMicro(deps.config.LISTING_FEE_USDC);
  return {
    description: `Listing fee (${deps.config.LISTING_FEE_USDC} USDC) for one archive upload`,
    options: CHAINS.map((chain) => ({ chain, payTo, amountMicro })),
  };
}

/**
 * A validated upload becomes a listing (spec 4.3 `POST /api/v1/items`):
 * 1. duplicate rules by SHA-256, before the fee is prompted (402 from the guard when unsigned);
 * 2. with a verified fee authorization: the seller's listing cap, then the archive goes to the blob
 *    store, then the paid operation runs once per authorization (settle, then item row + scan job
 *    in one transaction). Bytes are stored before the row commits and removed again when the
 *    request fails, so no row points at missing bytes and no failed request leaves bytes behind.
 *    A retry of the same signed request answers the stored result.
 */
export async function submitListing(
  deps: Deps,
  request: GuardRequest,
  upload: ValidUpload,
): Promise<SubmitResult> {
  const offer = listingFeeOffer(deps);
  if (!paymentSignatureOf(request)) {
    await checkDuplicates(deps.sql, upload.sha256);
    await deps.x402.paid(request, offer); // throws the 402 prompt
  }
  const payment = await deps.x402.paid(request, offer);
  // A retry of an authorization already claimed answers its stored outcome; only new ones are checked.
  const [known] = await deps.sql`
    select 1 from x402_payments where payer = ${payment.payer} and nonce = ${payment.nonce} and status <> 'released'`;
  if (!known) {
    await checkDuplicates(deps.sql, upload.sha256, payment.payer);
    await checkListingCap(deps.sql, payment.payer, deps.config.MAX_ACTIVE_LISTINGS);
  }
  const itemId = randomUUID();
  const archiveKey = `archives/${itemId}.${upload.compression === 'zip' ? 'zip' : 'tar.gz'}`;
  await deps.storage.put(archiveKey, upload.bytes, { maxBytes: deps.config.MAX_ARCHIVE_BYTES });
  let done;
  try {
    done = await deps.payments.run<ListingContext, ListingResult>({
      operation: LISTING_FEE_OPERATION,
      payment,
      context: listingContext(itemId, archiveKey, upload),
      pendingDetails: (c) => ({ item_id: c.item_id }),
    });
  } catch (e) {
    // A pending settlement may still complete (the reconciler then creates this very listing):
    // its bytes must stay. Every other failure created nothing.
    if (!(e instanceof AppError && e.code === 'payment_settlement_pending'))
      await removeQuietly(deps, archiveKey);
    throw e;
  }
  if (done.result.item_id !== itemId) await removeQuietly(deps, archiveKey); // a replay: the first request's bytes hold
  if (!done.replayed) deps.work.wake();
  return {
    body: {
      item_id: done.result.item_id,
      status: done.result.status,
      invoice_url: signListingInvoice(
        deps.secrets.urlSigningKey,
        deps.config.PUBLIC_BASE_URL,
        done.result.item_id,
        deps.config.SIGNED_URL_TTL_SECONDS,
      ),
    },
    paymentResponseHeader: done.paymentResponseHeader,
  };
}

async function removeQuietly(deps: Deps, key: string): Promise<void> {
  try {
    await deps.storage.delete(key);
  } catch (err) {
    deps.logger.warn({ err, key }, 'could not remove archive bytes of a failed upload');
  }
}
