import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { scanReportProblem } from '../../src/client/attestation.js';
import { MarketplaceError } from '../../src/client/errors.js';
import type { MarketplaceClient } from '../../src/client/index.js';
import { ChainSchema } from '../../src/wire/chains.js';
import { currentLegal } from '../../src/wire/legal.js';
import { AcquireResponseSchema, type AcquireResponse } from '../../src/wire/orders.js';
import type { McpDeps } from '../deps.js';
import {
  authorizePayment,
  chainOf,
  offerOf,
  PaymentRefused,
  promptPriceUsdc,
  quoted,
  releasePayment,
  spentPayment,
} from './paying.js';
import { Cancelled, Progress } from './progress.js';
import { apiFailure, bodyOf, failure, nothingCharged, success, type ErrorBody } from './results.js';

export const NO_WALLET =
  'This MCP server has no wallet. The operator must set MCP_WALLET_PRIVATE_KEY (a 0x-prefixed hex private key ' +
  'of a wallet holding USDC on base or polygon) and restart the server. Nothing was signed or charged.';

export const AcquireResultSchema = AcquireResponseSchema.extend({
  item_id: z.string(),
  price_usdc: z.number().describe('What was paid'),
  chain: z.string().describe('Where it was paid'),
  transaction: z.string().optional().describe('Settlement transaction'),
  archive: z
    .object({
      path: z.string().describe('The archive on this machine'),
      bytes: z.number(),
      sha256: z.string().describe("Checked against the marketplace's stated digest"),
      verified: z.literal(true),
    })
    .optional()
    .describe('Absent when the download failed (see note); the order stands'),
  scan_report: z
    .object({
      verified: z.literal(true),
      signer: z.string().describe("The marketplace's attestation address (from /api/v1/skills)"),
      scanned_at: z.string(),
      scanner_version: z.string(),
    })
    .optional()
    .describe(
      "The marketplace's signed scan report, verified (EIP-712) and matched to the downloaded archive; absent when the listing has none",
    ),
  unpacked: z
    .object({ dir: z.string(), files: z.array(z.string()) })
    .optional()
    .describe('With unpack: true, the new folder and the files in it'),
  note: z.string().optional(),
});

/** Purchases under way, per wallet and item: a concurrent retry must not pay a second time. */
const inFlight = new Set<string>();

export function registerAcquireItem(server: McpServer, deps: McpDeps): void {
  const legal = currentLegal(deps.baseUrl);
  const { limits } = deps;
  const cap = limits.perPurchase;
  server.registerTool(
    'acquire_item',
    {
      title: 'Buy listing',
      description:
        "Buys one listing, downloads the archive into this server's download folder, checks its SHA-256 against the marketplace's digest " +
        "and its signed scan report (EIP-712, verified against the marketplace's published attestation address), " +
        "and on request unpacks it into a new folder (refusing unsafe entries with the marketplace scan's rules). Use it once the user " +
        `has chosen an item and agreed to its price (check it with quote_item). Costs the item's price in USDC from this server's wallet (x402); ` +
        `this server pays at most ${cap} USDC per purchase and ${limits.daily} USDC per rolling 24 hours, and asks the human above ${limits.confirmAbove} USDC. ` +
        'Buying the same listing again is refused (returning the earlier order) unless buy_again is true; for fresh links use get_order. ' +
        `Buying accepts the marketplace policy (${legal.policy.url}) and the buyer license (${legal.license.url}). ` +
        'Reports progress (quote, payment, download, checks, unpack); cancelled before the payment is signed, nothing is paid; ' +
        'cancelled after, the order is kept and recorded (no second purchase) and download_order fetches the archive. ' +
        'Returns { order_id, download_url, invoice_url, expires_in, price_usdc, chain, archive: { path, sha256 }, unpacked? }; ' +
        'the URLs are short-lived bearer credentials: do not share them.',
      inputSchema: {
        item_id: z.uuid().describe('Listing id (a uuid), as returned by search_items'),
        chain: ChainSchema.optional().describe(
          'Chain to pay on, "base" or "polygon"; one of the item\'s available_chains. Omit to use the first chain the seller accepts',
        ),
        max_price_usdc: z
          .number()
          .positive()
          .max(100)
          .describe(
            'The most the user agreed to pay, in USDC, >0 and <=100. A higher price is refused before anything is signed',
          ),
        accept_terms: z
          .literal(true)
          .describe(
            `Must be true: the user accepts the policy ${legal.policy.url} and the buyer license ${legal.license.url}`,
          ),
        unpack: z
          .boolean()
          .optional()
          .describe('true: also unpack the archive into a new folder beside it (default false)'),
        buy_again: z
          .boolean()
          .optional()
          .describe(
            'true: pay again although this wallet already bought this listing (default false: refused, returning the earlier order)',
          ),
      },
      outputSchema: AcquireResultSchema,
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: true,
      },
    },
    async ({ item_id, chain, max_price_usdc, unpack, buy_again }, extra) => {
      if (!deps.wallet) return failure(`acquire_item failed: ${NO_WALLET}`);
      let wallet: MarketplaceClient;
      try {
        wallet = await deps.wallet();
      } catch (err) {
        return apiFailure(err, 'acquire_item', deps.baseUrl);
      }
      const key = `${wallet.address}:${item_id}`;
      if (inFlight.has(key))
        return failure(
          'acquire_item refused: a purchase of this listing by this wallet is already under way. Nothing was signed; wait for it and check list_my_orders.',
        );
      const earlier = await deps.state.orderOfItem(wallet.address, item_id);
      if (earlier && !buy_again) {
        return failure(
          `acquire_item refused: this wallet already bought this listing on ${earlier.bought_at} (order_id ${earlier.order_id}, ${earlier.price_usdc} USDC, ` +
            `status ${earlier.status}${earlier.local_path ? `, saved at ${earlier.local_path}` : ''}). Nothing was signed. ` +
            `For fresh download links call get_order { order_id: "${earlier.order_id}" }; only if the user wants to pay for it again, call acquire_item with buy_again: true.`,
        );
      }
      inFlight.add(key);
      try {
        // quote, pay, download, check and save, (unpack)
        const progress = new Progress(extra, unpack ? 5 : 4);
        return await buy(server, deps, wallet, progress, {
          item_id,
          chain,
          max_price_usdc,
          unpack,
        });
      } finally {
        inFlight.delete(key);
      }
    },
  );
}

async function buy(
  server: McpServer,
  deps: McpDeps,
  wallet: MarketplaceClient,
  progress: Progress,
  args: { item_id: string; chain?: 'base' | 'polygon'; max_price_usdc: number; unpack?: boolean },
) {
  const { item_id, chain, max_price_usdc } = args;
  const cap = deps.limits.perPurchase;
  const item = await deps.catalog.getItem(item_id).catch(() => undefined);
  let reservation: string | undefined;
  let price = 0;
  let paidOn = chain ?? 'unknown';
  let order: AcquireResponse;
  let transaction: string | undefined;
  try {
    progress.check();
    await progress.step('asking the marketplace for the price');
    const res = await wallet.acquire(item_id, {
      ...(chain && { chain }),
      maxPriceUsdc: Math.min(max_price_usdc, cap),
      approve: async (required) => {
        price = promptPriceUsdc(required);
        paidOn = chainOf(required, chain);
        const offer = offerOf(required, chain);
        progress.check();
        reservation = await authorizePayment(
          server,
          deps,
          wallet.address,
          {
            kind: 'purchase',
            usdc: price,
            ref: item_id,
            offer,
            // our own fields first; the seller's title only quoted, cut and stripped of controls
            summary:
              `listing ${item_id} from seller ${item?.metadata.seller_username ?? 'unknown'}, paid on ${paidOn} ` +
              `to ${offer?.payTo ?? 'unknown'} from wallet ${wallet.address}` +
              (item?.metadata.title ? ` (seller's title: "${quoted(item.metadata.title)}")` : ''),
          },
          progress.signal,
        );
        if (progress.cancelled) {
          // the last moment to stop: nothing is signed yet
          await releasePayment(server, deps, reservation);
          reservation = undefined;
          throw new Cancelled();
        }
        await progress.step(`paying ${price} USDC on ${paidOn}`);
      },
    });
    order = res.order;
    transaction = res.settlement?.transaction || undefined;
  } catch (err) {
    if (err instanceof PaymentRefused) return failure(`acquire_item refused: ${err.text}`);
    // without a reservation nothing was signed
    if (err instanceof Cancelled || (progress.cancelled && !reservation))
      return failure(
        'acquire_item cancelled before the payment was signed: nothing was paid or recorded.',
      );
    if (reservation) {
      if (nothingCharged(err)) await releasePayment(server, deps, reservation);
      else await spentPayment(deps, reservation);
    }
    if (err instanceof MarketplaceError && err.code === 'payment_settlement_pending') {
      const b = bodyOf(err);
      if (b.order_id)
        await deps.state.recordOrder({
          order_id: b.order_id,
          item_id,
          wallet: wallet.address,
          ...(item?.metadata.title && { title: item.metadata.title }),
          ...(item?.metadata.seller_username && {
            seller_username: item.metadata.seller_username,
          }),
          price_usdc: price,
          chain: paidOn,
          ...(b.transaction && { transaction: b.transaction }),
          status: 'settlement_pending',
          bought_at: new Date().toISOString(),
        });
    }
    return apiFailure(err, 'acquire_item', deps.baseUrl, {
      price_above_limit: (b: ErrorBody) =>
        (b.price_usdc ?? 0) > cap
          ? `The price is ${b.price_usdc} USDC, above this server's cap of ${cap} USDC per purchase (MCP_MAX_PAYMENT_USDC). Nothing was signed; only the operator can raise the cap.`
          : `The price is ${b.price_usdc} USDC, above max_price_usdc ${max_price_usdc}. Nothing was signed. If the user agrees to pay ${b.price_usdc} USDC, call again with max_price_usdc >= ${b.price_usdc}.`,
      self_purchase_forbidden:
        "The configured wallet is this listing's seller; a seller cannot buy its own listing.",
    });
  }
  if (reservation) await spentPayment(deps, reservation);
  const record = {
    order_id: order.order_id,
    item_id,
    wallet: wallet.address,
    ...(item?.metadata.title && { title: item.metadata.title }),
    ...(item?.metadata.seller_username && { seller_username: item.metadata.seller_username }),
    price_usdc: price,
    chain: paidOn,
    ...(transaction && { transaction }),
    status: 'completed' as const,
    bought_at: new Date().toISOString(),
  };
  await deps.state.recordOrder(record);
  const base: z.infer<typeof AcquireResultSchema> = {
    ...order,
    item_id,
    price_usdc: price,
    chain: paidOn,
    ...(transaction && { transaction }),
  };
  if (progress.cancelled) {
    // paid and recorded (no second purchase, the budget counts it); the download can wait
    paidThenCancelled(deps, base, 'before the download');
    return success({
      ...base,
      note: `Paid and recorded, then cancelled before the download. Do not pay again: call download_order { order_id: "${order.order_id}" }.`,
    });
  }
  await progress.step(`paid (order ${order.order_id}); downloading the archive`);
  // the archive module loads the scan library (and viem's word list): only when a purchase needs it
  const { compressionOfName, safeUnpack, saveNew, sha256 } = await import('../archive.js');
  let saved: { path: string; bytes: number; sha256: string; verified: true };
  let archiveBytes: Buffer;
  let fileName: string;
  try {
    const [download, invoice] = await Promise.all([
      wallet.download(order.download_url, { signal: progress.signal }),
      wallet.invoiceJson(order.invoice_url).catch(() => undefined),
    ]);
    progress.check();
    await progress.step("checking the archive's digest and signed scan report, saving it");
    const stated = [download.statedSha256, invoice?.item.sha256].filter((x): x is string => !!x);
    if (stated.length === 0 || stated.some((s) => s.toLowerCase() !== download.sha256)) {
      return failure(
        `acquire_item: paid (order_id ${order.order_id}), but the downloaded archive's SHA-256 ${download.sha256} does not match the marketplace's digest ` +
          `(${stated.join(', ') || 'none stated'}), so it was not kept. Do not pay again: call get_order { order_id: "${order.order_id}" } for fresh links and download again, or report it to the operator.`,
      );
    }
    let scanReport: z.infer<typeof AcquireResultSchema>['scan_report'];
    if (order.attestation) {
      const problem = await scanReportProblem(order.attestation, {
        signer: await deps.catalog.attestationSigner(),
        itemId: item_id,
        sha256: download.sha256,
      });
      if (problem)
        return failure(
          `acquire_item: paid (order_id ${order.order_id}), but the marketplace's signed scan report does not hold: ${problem}, so the archive was not kept. ` +
            `Do not pay again: report it to the operator; get_order { order_id: "${order.order_id}" } gives fresh links.`,
        );
      const m = order.attestation.typed_data.message;
      scanReport = {
        verified: true,
        signer: order.attestation.signer,
        scanned_at: new Date(m.scannedAt * 1000).toISOString(),
        scanner_version: m.scannerVersion,
      };
    }
    fileName = path.basename(download.fileName ?? invoice?.item.file_name ?? `${item_id}.zip`);
    if (!compressionOfName(fileName)) fileName = `${fileName}.zip`;
    const file = path.join(deps.downloadDir, order.order_id, fileName);
    await saveNew(file, download.bytes);
    archiveBytes = download.bytes;
    saved = {
      path: file,
      bytes: download.bytes.length,
      sha256: sha256(download.bytes),
      verified: true,
    };
    if (scanReport) base.scan_report = scanReport;
    await deps.state.recordOrder({ ...record, local_path: file });
  } catch (err) {
    if (progress.cancelled) {
      paidThenCancelled(deps, base, 'during the download');
      return success({
        ...base,
        note: `Paid and recorded, then cancelled during the download (nothing was saved). Do not pay again: call download_order { order_id: "${order.order_id}" }.`,
      });
    }
    return success({
      ...base,
      note:
        `Paid and recorded, but the download failed (${err instanceof Error ? err.message.slice(0, 200) : String(err)}). ` +
        `Do not pay again: call get_order { order_id: "${order.order_id}" } for fresh links.`,
    });
  }
  if (!args.unpack) return linked(success({ ...base, archive: saved }), saved.path);
  if (progress.cancelled) {
    paidThenCancelled(deps, base, 'before unpacking', saved.path);
    return linked(
      success({
        ...base,
        archive: saved,
        note: 'Cancelled before unpacking; the archive is saved.',
      }),
      saved.path,
    );
  }
  await progress.step('unpacking');
  const target = path.join(
    path.dirname(saved.path),
    fileName.replace(/\.(zip|tar\.gz|tgz)$/i, '') || 'unpacked',
  );
  try {
    const unpacked = await safeUnpack(archiveBytes, compressionOfName(fileName)!, target);
    if (!unpacked.ok)
      return success({
        ...base,
        archive: saved,
        note: `Not unpacked: the archive holds entries the marketplace scan refuses (${unpacked.findings.slice(0, 5).join('; ')}). The archive file is kept; inspect it before opening.`,
      });
    await deps.state.recordOrder({ ...record, local_path: saved.path, unpacked_to: unpacked.dir });
    return linked(
      success({ ...base, archive: saved, unpacked: { dir: unpacked.dir, files: unpacked.files } }),
      saved.path,
      unpacked.dir,
    );
  } catch (err) {
    return success({
      ...base,
      archive: saved,
      note: `Not unpacked: ${err instanceof Error ? err.message.slice(0, 200) : String(err)}. The archive file is kept.`,
    });
  }
}

/** A payment the caller will not hear of (it cancelled): the log says what was bought and kept. */
function paidThenCancelled(
  deps: McpDeps,
  base: { order_id: string; item_id: string; price_usdc: number; chain: string },
  when: string,
  savedAt?: string,
): void {
  deps.log?.('info', `acquire_item cancelled ${when}, after paying: the order is recorded`, {
    order_id: base.order_id,
    item_id: base.item_id,
    price_usdc: base.price_usdc,
    chain: base.chain,
    ...(savedAt && { saved_at: savedAt }),
  });
}

/** `resource_link`s to the saved archive and the unpacked folder, beside the structured result. */
function linked(result: CallToolResult, file: string, dir?: string): CallToolResult {
  result.content.push({
    type: 'resource_link',
    uri: pathToFileURL(file).href,
    name: path.basename(file),
    mimeType: file.endsWith('.zip') ? 'application/zip' : 'application/gzip',
  });
  if (dir)
    result.content.push({
      type: 'resource_link',
      uri: pathToFileURL(dir).href,
      name: `${path.basename(dir)}/`,
      description: 'The unpacked folder',
    });
  return result;
}
