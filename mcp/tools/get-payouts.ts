import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { SellerPayoutsSchema, type SellerPayouts } from '../../src/domain/payouts/schemas.js';
import type { McpDeps } from '../server.js';
import { registerWalletTool } from './wallet-tool.js';

const usdc = (raw: bigint, decimals = 6) => {
  const s = raw.toString().padStart(decimals + 1, '0');
  const whole = s.slice(0, -decimals);
  const frac = s.slice(-decimals).replace(/0+$/, '');
  return frac ? `${whole}.${frac}` : whole;
};

/**
 * The payouts in plain words (spec 2.7 grammar): the receivable is `pending_raw`, the total earned
 * the sum of `paid_raw`; forwarding is automatic, normally within 15 minutes.
 */
export function payoutSummary(p: SellerPayouts): string {
  const parts: string[] = [];
  for (const e of p.payouts) {
    if (e.status === 'payout_address_missing') {
      parts.push(`${e.chain}: no payout contract yet, so sales cannot be paid there`);
    } else if (e.status === 'rpc_error' || e.status === 'token_missing') {
      parts.push(`${e.chain}: balance unreadable right now (${e.status})`);
    } else {
      parts.push(`${e.chain}: ${e.pending} USDC receivable`);
    }
  }
  const paid = p.payout_history.reduce((sum, h) => sum + BigInt(h.paid_raw), 0n);
  const last = p.payout_history[0];
  const pending = p.payouts.some((e) => BigInt(e.pending_raw) > 0n);
  return (
    `Receivable: ${parts.join('; ')}. ` +
    `Paid out so far: ${usdc(paid)} USDC in ${p.payout_history.length} payout${p.payout_history.length === 1 ? '' : 's'}` +
    `${last ? ` (latest ${last.paid} USDC on ${last.chain} at ${last.paid_at})` : ''}. ` +
    (pending
      ? 'Next forwarding: automatic, normally within 15 minutes; anyone may send the payout_now transaction to forward it sooner (the sender pays gas).'
      : 'Nothing is waiting to be forwarded.')
  );
}

export function registerGetPayouts(server: McpServer, deps: McpDeps): void {
  registerWalletTool(
    server,
    deps,
    'get_payouts',
    {
      title: 'Get my payouts',
      description:
        "Reads this wallet's sale proceeds: per chain what is receivable (pending, the seller's share), the payout contract and its " +
        'split, a payout_now recipe anyone can send to forward it at once, and the payout history; plus a plain-language summary ' +
        '(receivable per chain, paid so far, next forwarding). Use it when the user asks about earnings. Free: a zero-value identity ' +
        'signature, never settled. Returns { summary, payouts, payout_history }.',
      inputSchema: {},
      outputSchema: SellerPayoutsSchema.extend({
        summary: z.string().describe('The figures in plain words'),
      }),
      annotations: {
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
    async (wallet) => {
      const payouts = await wallet.sellerPayouts();
      return { summary: payoutSummary(payouts), ...payouts };
    },
  );
}
