import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { publishedScanReportProblem } from '../../src/client/attestation.js';
import type { MarketplaceClient } from '../../src/client/index.js';
import { AcquireResponseSchema, type AcquireResponse } from '../../src/wire/orders.js';
import type { McpDeps } from '../deps.js';
import type { LocalOrder } from '../state.js';
import type { Progress } from './progress.js';
import { failure, success } from './results.js';

/** What acquire_item answers: the order, and what became of the archive on this machine. */
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
      signer: z
        .string()
        .describe(
          "The marketplace's attestation address that signed it (published in /api/v1/skills: the current one or a retired one)",
        ),
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

/**
 * After the payment: downloads the archive, checks its digest and the signed scan report, saves
 * it (never a partial file) and unpacks it when asked. The order stands whatever fails here; every
 * answer says so, so the agent never pays twice.
 */
export async function deliverOrder(
  deps: McpDeps,
  wallet: MarketplaceClient,
  progress: Progress,
  paid: {
    order: AcquireResponse;
    item_id: string;
    base: z.infer<typeof AcquireResultSchema>;
    record: LocalOrder;
    unpack?: boolean | undefined;
  },
): Promise<CallToolResult> {
  const { order, item_id, base, record } = paid;
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
      const problem = await publishedScanReportProblem(deps.catalog, order.attestation, {
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
  if (!paid.unpack) return linked(success({ ...base, archive: saved }), saved.path);
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
export function paidThenCancelled(
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
