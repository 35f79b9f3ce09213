import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { InvoiceSchema } from '../../src/wire/orders.js';
import type { McpDeps } from '../deps.js';
import { NO_WALLET } from './acquire-item.js';
import { Progress } from './progress.js';
import { apiFailure, failure, success } from './results.js';

const readOnly = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
} as const;

/**
 * download_order (an order's archive again, checked and saved) and get_invoice (the paid
 * invoice): both fetch fresh links with a zero-value identity proof (free), then read them.
 */
export function registerOrderFiles(server: McpServer, deps: McpDeps): void {
  server.registerTool(
    'get_invoice',
    {
      title: 'Read an invoice',
      description:
        "Reads the invoice of an order this server's wallet bought: number, item (title, file name, SHA-256), seller, buyer, " +
        'amount in USDC, payment (chain, recipient, payer, transaction) and the accepted legal terms. Free: a zero-value identity ' +
        'proof, never settled.',
      inputSchema: {
        order_id: z.uuid().describe('Order id (a uuid), as returned by acquire_item'),
      },
      outputSchema: InvoiceSchema,
      annotations: readOnly,
    },
    async ({ order_id }) => {
      if (!deps.wallet) return failure(`get_invoice failed: ${NO_WALLET}`);
      try {
        const wallet = await deps.wallet();
        const links = await wallet.getOrder(order_id);
        if (!('invoice_url' in links) || typeof links.invoice_url !== 'string')
          return failure(
            'get_invoice failed: this marketplace gives no invoice link for the order.',
          );
        return success(await wallet.invoiceJson(links.invoice_url));
      } catch (err) {
        return apiFailure(err, 'get_invoice', deps.baseUrl);
      }
    },
  );

  server.registerTool(
    'download_order',
    {
      title: 'Download an order again',
      description:
        "Downloads the archive of an order this server's wallet bought again (e.g. the first download failed or the file was " +
        "deleted), checks its SHA-256 against the marketplace's digest and saves it as a new file in the download folder. " +
        'Free: fresh links through a zero-value identity proof; nothing is paid. Returns { order_id, path, bytes, sha256 } and a ' +
        'resource_link to the file.',
      inputSchema: {
        order_id: z.uuid().describe('Order id (a uuid), as returned by acquire_item'),
      },
      outputSchema: z.object({
        order_id: z.string(),
        path: z.string().describe('The archive on this machine'),
        bytes: z.number(),
        sha256: z.string().describe("Checked against the marketplace's stated digest"),
        verified: z.literal(true),
      }),
      annotations: { ...readOnly, readOnlyHint: false, idempotentHint: false },
    },
    async ({ order_id }, extra): Promise<CallToolResult> => {
      if (!deps.wallet) return failure(`download_order failed: ${NO_WALLET}`);
      const progress = new Progress(extra, 3);
      try {
        const wallet = await deps.wallet();
        await progress.step('fetching fresh links');
        const links = await wallet.getOrder(order_id);
        progress.check();
        await progress.step('downloading the archive');
        const download = await wallet.download(links.download_url, { signal: progress.signal });
        progress.check();
        await progress.step("checking it against the marketplace's digest and saving it");
        const invoice =
          'invoice_url' in links && typeof links.invoice_url === 'string'
            ? await wallet.invoiceJson(links.invoice_url).catch(() => undefined)
            : undefined;
        const stated = [download.statedSha256, invoice?.item.sha256].filter(
          (x): x is string => !!x,
        );
        if (stated.length === 0 || stated.some((s) => s.toLowerCase() !== download.sha256))
          return failure(
            `download_order: the archive's SHA-256 ${download.sha256} does not match the marketplace's digest ` +
              `(${stated.join(', ') || 'none stated'}), so it was not kept. Report it to the operator.`,
          );
        const { compressionOfName, saveNew } = await import('../archive.js');
        let name = path.basename(download.fileName ?? invoice?.item.file_name ?? `${order_id}.zip`);
        if (!compressionOfName(name)) name = `${name}.zip`;
        const file = path.join(deps.downloadDir, order_id, `again-${Date.now()}-${name}`);
        await saveNew(file, download.bytes);
        const result = success({
          order_id,
          path: file,
          bytes: download.bytes.length,
          sha256: download.sha256,
          verified: true,
        });
        result.content.push({
          type: 'resource_link',
          uri: pathToFileURL(file).href,
          name,
          mimeType: name.endsWith('.zip') ? 'application/zip' : 'application/gzip',
        });
        return result;
      } catch (err) {
        if (progress.cancelled) return failure('download_order cancelled; nothing was saved.');
        return apiFailure(err, 'download_order', deps.baseUrl);
      }
    },
  );
}
