import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import {
  PayoutEntryASchema,
  PayoutEntrySchema,
  PayoutHistoryEntrySchema,
  type SellerPayouts,
  type SellerPayoutsA,
} from '../../src/wire/payouts.js';
import type { McpDeps } from '../deps.js';
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

/**
 * Revision A's payouts in plain words: balances keyed by the wallet linked on each chain, with
 * A's statuses. Revision A reports no history and no forwarding recipe, so the summary says so
 * rather than inventing either.
 */
export function payoutSummaryA(p: SellerPayoutsA): string {
  const parts = p.payouts.map((e) => {
    switch (e.status) {
      case 'wallet_missing':
        return `${e.chain}: no wallet linked, so buyers cannot pay you there (set_sales_chains links this wallet)`;
      case 'contract_missing':
        return `${e.chain}: no payout contract yet, so sales cannot be paid there`;
      case 'token_missing':
      case 'rpc_error':
        return `${e.chain}: balance unreadable right now (${e.status})`;
      default:
        return `${e.chain}: ${e.pending} USDC receivable for ${e.seller_wallet}`;
    }
  });
  return (
    `Receivable: ${parts.join('; ')}. ` +
    'This marketplace runs contract Revision A, which reports current balances only: no payout history and no ' +
    'forwarding recipe; its agent guide (/agent-usage) says how balances reach your wallet.'
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
        '(receivable per chain, paid so far, next forwarding). On a Revision A (API-key) marketplace each entry instead names the ' +
        'seller_wallet linked on its chain, with status ok, wallet_missing, contract_missing, token_missing or rpc_error, and there is ' +
        'no payout_history. Use it when the user asks about earnings. Free: a zero-value identity signature (or the API key), never ' +
        'settled. Returns { summary, payouts, payout_history? }.',
      inputSchema: {},
      outputSchema: z.object({
        summary: z.string().describe('The figures in plain words'),
        payouts: z
          .array(z.union([PayoutEntrySchema, PayoutEntryASchema]))
          .describe(
            'One entry per supported chain: with allocation and payout_now (Revision B), or with seller_wallet (Revision A)',
          ),
        payout_history: z
          .array(PayoutHistoryEntrySchema)
          .optional()
          .describe(
            'The last 50 payouts, newest first; total earned is the sum of paid_raw. Absent on a Revision A marketplace, which does not report history',
          ),
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
      return 'payout_history' in payouts
        ? { summary: payoutSummary(payouts), ...payouts }
        : { summary: payoutSummaryA(payouts), ...payouts };
    },
  );
}
