import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { MarketplaceError } from '../../src/client/errors.js';
import type { MarketplaceClient } from '../../src/client/index.js';
import { ChainSchema } from '../../src/wire/chains.js';
import {
  UploadMetadataSchema,
  UploadResponseSchema,
  type UploadMetadata,
} from '../../src/wire/listings.js';
import type { PackedArchive } from '../archive.js';
import type { McpDeps } from '../deps.js';
import type { PendingFee } from '../state.js';
import { decidedAt, NO_WALLET, VALID_BEFORE_REASON, validBeforeOf } from './acquire-item.js';
import {
  authorizePayment,
  offerOf,
  PaymentRefused,
  pendingPayment,
  promptPriceUsdc,
  releasePayment,
  spentPayment,
} from './paying.js';
import { Cancelled, Progress } from './progress.js';
import {
  apiFailure,
  bodyOf,
  failure,
  mayStillSettle,
  nothingCharged,
  spentOn,
  success,
  type ErrorBody,
} from './results.js';

const cancelledBefore = () =>
  failure('list_item cancelled before the listing fee was signed: nothing was paid or listed.');

/** Spec 8: archives up to 10 MB. */
export const MAX_ARCHIVE_BYTES = 10 * 1024 * 1024;

const meta = UploadMetadataSchema.shape;

export const ListItemResultSchema = UploadResponseSchema.extend({
  fee_usdc: z.number().describe('Listing fee paid'),
  sha256: z.string().describe('Digest of the uploaded archive'),
  compression: z.enum(['zip', 'tar.gz']),
  bytes: z.number(),
  files: z.array(z.string()).optional().describe('Packed files (directory source)'),
  excluded: z
    .array(z.string())
    .optional()
    .describe('Left out: .gitignore matches, node_modules, .git, .env files, keys, links'),
  next: z.string(),
});

export function registerListItem(server: McpServer, deps: McpDeps): void {
  const { limits } = deps;
  server.registerTool(
    'list_item',
    {
      title: 'List an archive for sale',
      description:
        'Lists code for sale: a local directory (packed as .zip, honouring .gitignore and leaving out node_modules, .git, .env files and keys) ' +
        "or a .zip / .tar.gz file. Before any fee it runs the marketplace's own safety scan locally and refuses, with the file and line of " +
        "each finding (never a secret's value), an archive the scan would reject. Then it pays the listing fee (0.01 USDC on the default " +
        `deployment; at most ${limits.listingFee} USDC here, within the ${limits.daily} USDC daily budget) and uploads. ` +
        'The marketplace scans it again; follow it with get_listing_status (wait_seconds) until it is active. ' +
        'Reports progress (pack, pre-check, upload, fee); cancelled before the fee is signed, nothing is paid or listed. ' +
        'When an earlier call for the same archive ended with its fee pending or failed, it re-sends that same signed fee (it cannot charge twice) ' +
        'and answers the listing, still pending (call again later), or released with nothing charged (call again to list). ' +
        'Returns { item_id, status: "pending_scan", invoice_url, fee_usdc, sha256, files, excluded }.',
      inputSchema: {
        source_path: z
          .string()
          .min(1)
          .describe(
            'Absolute path of a project directory, or of a .zip / .tar.gz / .tgz file (max 10 MB)',
          ),
        title: meta.title,
        description: meta.description,
        prompt_summary: meta.prompt_summary,
        tech_stack: meta.tech_stack,
        price_usdc: z
          .number()
          .positive()
          .max(100)
          .describe(
            'Sale price in USDC, at most 6 decimals, within the deployment range (default 0.1..100)',
          ),
        chain: ChainSchema.optional().describe(
          'Chain to pay the listing fee on, "base" or "polygon"',
        ),
      },
      outputSchema: ListItemResultSchema,
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: true,
      },
    },
    async (args, extra) => {
      if (!deps.wallet) return failure(`list_item failed: ${NO_WALLET}`);
      const source = path.resolve(args.source_path);
      // pack, pre-check, upload (the marketplace validates first), pay the fee
      const progress = new Progress(extra, 4);
      // the archive module loads the scan library: only when a listing needs it
      const { describeFindings, packDirectory, precheck, readArchive } =
        await import('../archive.js');
      let archive: Omit<PackedArchive, 'files' | 'excluded'> & Partial<PackedArchive>;
      try {
        const info = await stat(source);
        await progress.step(info.isDirectory() ? 'packing the folder' : 'reading the archive');
        archive = info.isDirectory()
          ? await packDirectory(source, MAX_ARCHIVE_BYTES)
          : await readArchive(source, MAX_ARCHIVE_BYTES);
      } catch (err) {
        const text =
          (err as NodeJS.ErrnoException).code === 'ENOENT'
            ? `${source} does not exist`
            : String((err as Error).message ?? err);
        return failure(
          `list_item failed: ${text}. Nothing was paid; fix source_path and call again.`,
        );
      }
      if (progress.cancelled) return cancelledBefore();
      await progress.step("checking the archive with the marketplace's scan rules");
      const verdict = await precheck(archive.bytes, archive.compression);
      if (progress.cancelled) return cancelledBefore();
      if (verdict.verdict === 'reject') {
        const lines = describeFindings(verdict.findings);
        return failure(
          `list_item refused before any fee: the marketplace's scan would reject this archive as ${verdict.reason}. ` +
            `Findings: ${lines.slice(0, 10).join('; ')}${lines.length > 10 ? ` (+${lines.length - 10} more)` : ''}. ` +
            (verdict.reason === 'insufficient_complexity'
              ? 'List a project with more original source code.'
              : 'Remove or fix those files (secrets: delete them and rotate the key; add such files to .gitignore), then call again.') +
            ' Nothing was signed or paid.',
        );
      }
      let reservation: string | undefined;
      let fee = 0;
      /** The signed fee, kept from just before it is sent until its outcome is known. */
      let kept: PendingFee | undefined;
      const metadata: UploadMetadata = {
        title: args.title,
        description: args.description,
        ...(args.prompt_summary !== undefined && { prompt_summary: args.prompt_summary }),
        tech_stack: args.tech_stack,
        prices: { USDC: args.price_usdc },
      };
      try {
        const wallet = await deps.wallet();
        progress.check();
        // a fee signed for this archive whose outcome is unknown is re-sent: never a second one
        const earlier = await deps.state.pendingFee(wallet.address, archive.sha256);
        if (earlier) return await resendFee(deps, wallet, archive, earlier);
        await progress.step('uploading: the marketplace checks it before any fee');
        const { listing } = await wallet.upload(archive.bytes, {
          compression: archive.compression,
          metadata,
          ...(args.chain && { chain: args.chain }),
          signed: async ({ header, payload }) => {
            const { validBefore } = validBeforeOf(payload.payload);
            kept = {
              wallet: wallet.address,
              sha256: archive.sha256,
              fee_usdc: fee,
              payment: header,
              ...(args.chain && { payment_chain: args.chain }),
              ...(validBefore !== undefined && { valid_before: validBefore }),
              ...(reservation && { spend_id: reservation }),
              metadata,
              at: new Date().toISOString(),
            };
            await deps.state.recordFee(kept);
          },
          approve: async (required) => {
            fee = promptPriceUsdc(required);
            progress.check();
            reservation = await authorizePayment(
              server,
              deps,
              wallet.address,
              {
                kind: 'listing_fee',
                usdc: fee,
                ref: args.title,
                offer: offerOf(required, args.chain),
                summary: `listing fee for "${args.title}"`,
              },
              progress.signal,
            );
            await progress.step(`paying the listing fee of ${fee} USDC`);
          },
        });
        if (reservation) await spentPayment(deps, reservation);
        if (kept) await deps.state.forgetFee(kept.wallet, kept.sha256);
        // the caller will not hear of it: the log says what was paid and listed
        if (progress.cancelled)
          deps.log?.('info', 'list_item cancelled after the upload was sent: listed', {
            item_id: listing.item_id,
            fee_usdc: fee,
          });
        return success({
          ...listing,
          fee_usdc: fee,
          sha256: archive.sha256,
          compression: archive.compression,
          bytes: archive.bytes.length,
          ...(archive.files && { files: archive.files, excluded: archive.excluded ?? [] }),
          next: `The marketplace is scanning it: call get_listing_status { item_id: "${listing.item_id}", wait_seconds: 30 } until it is active.`,
        });
      } catch (err) {
        if (err instanceof PaymentRefused) return failure(`list_item refused: ${err.text}`);
        // without a reservation nothing was signed
        if (err instanceof Cancelled || (progress.cancelled && !reservation))
          return cancelledBefore();
        if (reservation) {
          if (nothingCharged(err)) await releasePayment(deps, reservation);
          // it may still settle: counted until a later list_item learns how it ended
          else if (mayStillSettle(err)) await pendingPayment(deps, reservation);
          else await spentPayment(deps, reservation);
        }
        // refused, nothing charged: the signed fee is of no more use; otherwise kept to re-send
        if (kept && nothingCharged(err)) await deps.state.forgetFee(kept.wallet, kept.sha256);
        return apiFailure(err, 'list_item', deps.baseUrl, {
          payment_settlement_pending: (b: ErrorBody) =>
            `The listing fee may have been charged and its outcome is unknown (${b.transaction ? `transaction ${b.transaction}` : 'no transaction named yet'}). ` +
            `Do NOT sign a new fee. ${AGAIN}`,
          payment_settlement_failed: (b: ErrorBody) => {
            const decided = decidedAt(kept?.valid_before, b);
            return (
              `The facilitator reported the listing fee as failed${b.reason ? ` (reason: ${b.reason})` : ''}, but the transfer may still be mined` +
              `${decided ? ` until ${decided}` : ''}: it is kept as pending and still counts against the budget. ${AGAIN}`
            );
          },
          duplicate_code:
            'This exact archive is already listed (by you or someone else); nothing was paid. Change the code or find the listing with list_my_items.',
          code_previously_rejected:
            "The marketplace's scan rejected these exact bytes before; they can never be listed. Nothing was paid.",
          listing_limit_reached:
            'This seller has the most listings allowed; delete some with delete_item first. Nothing was paid.',
        });
      }
    },
  );
}

const AGAIN =
  'To learn how it ended, call list_item again with the same source_path (and the same archive): ' +
  'it re-sends this same signed fee, which cannot charge twice, and answers the listing, still pending, or released with nothing charged.';

/**
 * A fee signed earlier for this same archive ended with its outcome unknown: the SAME signed fee
 * is sent again with the metadata it was signed for (same nonce, so it can never charge twice;
 * nothing new is signed while it can still settle). Listed: the fee stays counted. Refused once its
 * window passed, or failed and decided: nothing was charged, it goes back to the budget and the
 * next call signs afresh. Otherwise still pending, and when to ask again.
 */
async function resendFee(
  deps: McpDeps,
  wallet: MarketplaceClient,
  archive: Pick<PackedArchive, 'bytes' | 'sha256' | 'compression'> & Partial<PackedArchive>,
  kept: PendingFee,
): Promise<CallToolResult> {
  const forget = () => deps.state.forgetFee(kept.wallet, kept.sha256);
  const closes = kept.valid_before ? new Date(kept.valid_before * 1000).toISOString() : undefined;
  try {
    const { listing } = await wallet.upload(archive.bytes, {
      compression: archive.compression,
      metadata: kept.metadata as UploadMetadata,
      resend: kept.payment,
      ...(kept.payment_chain && { chain: kept.payment_chain }),
    });
    if (kept.spend_id) await spentPayment(deps, kept.spend_id);
    await forget();
    return success({
      ...listing,
      fee_usdc: kept.fee_usdc,
      sha256: archive.sha256,
      compression: archive.compression,
      bytes: archive.bytes.length,
      ...(archive.files && { files: archive.files, excluded: archive.excluded ?? [] }),
      next:
        `Listed with the fee signed earlier for this archive (re-sent: nothing new was signed; the metadata is the one it was signed for). ` +
        `The marketplace is scanning it: call get_listing_status { item_id: "${listing.item_id}", wait_seconds: 30 } until it is active.`,
    });
  } catch (err) {
    const b = err instanceof MarketplaceError ? bodyOf(err) : {};
    const listed = spentOn(err);
    if (listed) {
      // the fee settled and listed the archive (its window closed since): charged, nothing to re-send
      if (kept.spend_id) await spentPayment(deps, kept.spend_id);
      await forget();
      return failure(
        `list_item: the listing fee signed earlier for this archive settled and listed it (item_id ${listed}). Nothing new was signed; ` +
          `do not pay again. Call get_listing_status { item_id: "${listed}" } for its state.`,
      );
    }
    const expired =
      (kept.valid_before !== undefined && Date.now() / 1000 > kept.valid_before) ||
      b.reason === VALID_BEFORE_REASON;
    const decided =
      err instanceof MarketplaceError && err.code === 'payment_settlement_failed'
        ? decidedAt(kept.valid_before, b)
        : undefined;
    const released =
      (err instanceof MarketplaceError &&
        err.code === 'payment_verification_failed' &&
        expired &&
        nothingCharged(err)) ||
      (decided !== undefined && Date.now() > Date.parse(decided));
    if (released) {
      // it can never be charged now: back in the 24-hour budget and the session's cap
      if (kept.spend_id) await releasePayment(deps, kept.spend_id);
      await forget();
      return failure(
        `list_item: the listing fee signed earlier for this archive (${kept.fee_usdc} USDC) was released: it never settled ` +
          `and can no longer (${decided ? `failed, not mined by ${decided}` : `its authorization expired${closes ? ` at ${closes}` : ''}`}), ` +
          `so nothing was charged and nothing was listed. Its ${kept.fee_usdc} USDC are back in the 24-hour budget. Nothing new was signed. ` +
          'Call list_item again with the same arguments to list it: it signs a fresh fee.',
      );
    }
    if (mayStillSettle(err)) {
      const after = decided ?? closes;
      return failure(
        `list_item: the listing fee signed earlier for this archive is still pending; re-sending the same signed fee ` +
          `(it cannot charge twice) gave no outcome yet (HTTP ${err.status} ${err.code}). Nothing new was signed. Do NOT sign a new fee. ` +
          (after
            ? `It is decided by ${after}: call list_item again after ${after}.`
            : 'Call list_item again later.'),
      );
    }
    return apiFailure(err, 'list_item', deps.baseUrl, {
      payment_verification_failed: (e: ErrorBody) =>
        `Re-sending the listing fee signed earlier for this archive (still pending) was refused${e.reason ? ` (reason: ${e.reason})` : ''}. ` +
        `Nothing new was signed. Do NOT sign a new fee before ${closes ?? 'it is resolved'}; then call list_item again.`,
    });
  }
}
