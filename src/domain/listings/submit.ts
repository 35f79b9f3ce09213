import { randomUUID } from 'node:crypto';
import type { ListingPorts } from '../ports.js';
import type { PaidOffer } from '../../x402/guard.js';
import { CHAINS } from '../../wire/chains.js';
import { toMicro } from '../../wire/money.js';
import type { Pay } from '../payments/fulfilment.js';
import {
  archiveKeyOf,
  checkDuplicates,
  checkListingCap,
  LISTING_FEE_OPERATION,
  listingContext,
  type ListingContext,
  type ListingResult,
} from './listings.js';
import { listingInvoiceUrl } from './invoice.js';
import { keyedListingStatement } from './listing-statement.js';
import { referenced } from './purge.js';
import type { ValidUpload } from './upload.js';
import {
  UploadMultipartBodySchema,
  UploadResponseSchema,
  type ItemStatus,
} from '../../wire/listings.js';
import { bodyDiscoverySchema } from '../discovery/bazaar.js';

export interface SubmitResult {
  body: { item_id: string; status: string; invoice_url: string };
  paymentResponseHeader: string;
}

export function listingFeeOffer(deps: Pick<ListingPorts, 'config' | 'platformPayTo'>): PaidOffer {
  const payTo = deps.platformPayTo;
  const amount = toMicro(deps.config.LISTING_FEE_USDC);
  return {
    description: `Listing fee (${deps.config.LISTING_FEE_USDC} USDC) for one archive upload`,
    tags: ['listing-fee', 'sell-code'],
    options: CHAINS.map((chain) => ({ chain, payTo, amount })),
    bind: { purpose: 'listing_fee' },
    extensions: () => ({ bazaar: listingFeeDiscovery(deps.config.PUBLIC_BASE_URL) }),
  };
}

/** `extensions.bazaar` of the listing fee: the upload it pays for (multipart) and its answer. */
function listingFeeDiscovery(base: string) {
  return {
    info: {
      input: {
        type: 'http',
        method: 'POST',
        bodyType: 'form-data',
        body: {
          file: 'project.zip (the archive as a file part)',
          metadata: JSON.stringify({
            title: 'Rate limiter middleware',
            description: 'Token-bucket rate limiting for Express',
            tech_stack: 'typescript, express, redis',
            prices: { USDC: 4.5 },
          }),
        },
      },
      output: {
        type: 'json',
        example: {
          item_id: '00000000-0000-4000-8000-000000000000',
          status: 'pending_scan',
          invoice_url: `${base}/api/v1/listing-invoices/00000000-0000-4000-8000-000000000000?exp=0&sig=...`,
        },
      },
      guide: `${base}/agent-usage`,
    },
    schema: bodyDiscoverySchema({
      method: 'POST',
      bodyType: 'form-data',
      body: UploadMultipartBodySchema,
      response: UploadResponseSchema,
    }),
  };
}

/**
 * A validated upload becomes a listing (spec 4.3 `POST /api/v1/items`):
 * 1. duplicate rules by SHA-256, before the fee is prompted;
 * 2. with a verified fee authorization: the seller's listing cap, then the archive goes to the blob
 *    store under its content address (a retry stores nothing new), then the paid operation runs
 *    once per authorization (settle, then item row + scan job in the completing statement). No
 *    row ever points at missing bytes; bytes a refused request wrote go with its refusal
 *    (storeArchive), and what a crash leaves is swept by the purge task. A retry of the same
 *    signed request answers the stored result.
 */
export async function submitListing(
  deps: ListingPorts,
  upload: ValidUpload,
  pay: Pay,
): Promise<SubmitResult> {
  const payment = await pay({
    ...listingFeeOffer(deps),
    beforePrompt: () => checkDuplicates(deps.sql, upload.sha256),
  });
  const itemId = randomUUID();
  const archiveKey = archiveKeyOf(upload.sha256, upload.compression);
  const run = {
    operation: LISTING_FEE_OPERATION,
    payment,
    context: listingContext(itemId, archiveKey, upload),
    pendingDetails: (c: ListingContext) => ({ item_id: c.item_id }),
    // the same fee signature lists this archive with this metadata, and nothing else
    request: listingRequest(upload),
  };
  // A retry of an authorization already claimed answers its stored outcome; only new ones are
  // checked. One claimed for another archive or metadata is refused here, before any byte is stored.
  if (!(await deps.payments.knownClaim(run))) {
    try {
      await checkDuplicates(deps.sql, upload.sha256, payment.payer);
      await checkListingCap(deps.sql, payment.payer, deps.config.MAX_ACTIVE_LISTINGS);
    } catch (err) {
      // a twin of this very request (same signature, same archive) may have listed it since the
      // first look: the duplicate it finds is its own listing, whose answer is this one's
      if (!(await deps.payments.knownClaim(run))) throw err;
    }
  }
  const stored = await storeArchive(deps, archiveKey, upload.bytes);
  let done;
  try {
    done = await deps.payments.run<ListingContext, ListingResult>(run);
  } catch (err) {
    // the answer is the refusal; bytes a failed removal leaves are the purge task's (an hour on)
    await stored.undo().catch(() => undefined);
    throw err;
  }
  // A concurrent upload of the same bytes whose fee was refused may have removed them between
  // its two reference checks and this commit: the listing's bytes are put back before the scan.
  await stored.ensure();
  if (!done.replayed) deps.work.wake();
  return {
    body: {
      item_id: done.result.item_id,
      status: done.result.status,
      invoice_url: listingInvoiceUrl(
        deps.secrets.urlSigningKey,
        deps.config.PUBLIC_BASE_URL,
        { id: done.result.item_id, archiveSha256: upload.sha256 },
        deps.config.SIGNED_URL_TTL_SECONDS,
      ),
    },
    paymentResponseHeader: done.paymentResponseHeader,
  };
}

/**
 * Puts the archive under its content address and gives the way back for a request whose payment
 * is refused: bytes this request wrote go again when nothing refers to them (no listing, no open
 * payment), so a concurrent twin of its fee authorization refused with `authorization_already_used`,
 * or a refused fee, leaves no orphan. Bytes that were there before are someone else's and stay.
 * Same key, same bytes: if a concurrent upload of the same archive came to refer to them while
 * they were being removed, they are put back.
 */
async function storeArchive(
  deps: Pick<ListingPorts, 'sql' | 'storage' | 'config'>,
  key: string,
  bytes: Buffer,
): Promise<{ undo(): Promise<void>; ensure(): Promise<void> }> {
  const existed = (await deps.storage.stat(key)) !== undefined;
  const put = () => deps.storage.put(key, bytes, { maxBytes: deps.config.MAX_ARCHIVE_BYTES });
  await put();
  return {
    /** After this request's listing committed: its bytes are there (a twin's undo may have run). */
    async ensure() {
      if ((await deps.storage.stat(key)) === undefined) await put();
    },
    async undo() {
      if (existed || (await referenced(deps, key))) return;
      await deps.storage.delete(key);
      if (await referenced(deps, key)) await put();
    },
  };
}

/**
 * What makes two listing uploads the same request: the archive and everything said about it, i.e.
 * the listing's context less what the service chose (its id, storage key) or derived (size).
 * Taken from listingContext so that a metadata field added there is bound here too.
 */
function listingRequest(u: ValidUpload) {
  const {
    item_id: _id,
    archive_key: _key,
    archive_size: _size,
    ...request
  } = listingContext('', '', u);
  return request;
}

export interface KeyedSubmitResult {
  item_id: string;
  status: ItemStatus;
  status_url: string;
}

/**
 * Revision A's keyed upload (spec 4.2 `POST /api/v1/items`, no fee): the same rules as the paid
 * listing (duplicates by SHA-256, the listing cap, bytes stored by content before any row points
 * at them, the same item insert and scan job), for the key's agent. Upload links no wallet: the
 * listing is payable only on chains where the seller linked one (the `payable_chains` view).
 */
export async function submitKeyedListing(
  deps: Pick<ListingPorts, 'sql' | 'config' | 'storage' | 'work'>,
  seller: { id: string; address: string },
  upload: ValidUpload,
): Promise<KeyedSubmitResult> {
  await checkDuplicates(deps.sql, upload.sha256, seller.address);
  await checkListingCap(deps.sql, seller.address, deps.config.MAX_ACTIVE_LISTINGS);
  const archiveKey = archiveKeyOf(upload.sha256, upload.compression);
  await deps.storage.put(archiveKey, upload.bytes, { maxBytes: deps.config.MAX_ARCHIVE_BYTES });
  const context = listingContext(randomUUID(), archiveKey, upload);
  const { sql } = deps;
  const [row] = await sql<
    { result: string }[]
  >`${keyedListingStatement(sql, deps.config, seller.id, context)}`;
  // a paid upload of the same bytes refused meanwhile may have removed them: put them back
  if ((await deps.storage.stat(archiveKey)) === undefined)
    await deps.storage.put(archiveKey, upload.bytes, { maxBytes: deps.config.MAX_ARCHIVE_BYTES });
  deps.work.wake();
  const { item_id, status } = JSON.parse(row!.result) as { item_id: string; status: ItemStatus };
  return {
    item_id,
    status,
    status_url: `${deps.config.PUBLIC_BASE_URL}/api/v1/items/${item_id}/status`,
  };
}
