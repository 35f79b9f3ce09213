import { z } from 'zod';
import { ChainSchema } from './chains.js';
import { ITEM_STATUSES } from './listings.js';

/**
 * Wire schemas of the seller's money (spec 2.7, 2.8): payouts with their history, and seller
 * stats. Zod only, shared by the routes (OpenAPI and the manifest), the typed client and the MCP
 * tools. Raw amounts are exact integers in token units, as strings; the bare (human) form is the
 * same figure in USDC, derived from the raw one.
 */
const raw = (what: string) =>
  z.string().regex(/^\d+$/).describe(`${what}: exact integer in token units (USDC has 6 decimals)`);
const human = (what: string) => z.string().describe(`${what} in USDC, e.g. "4.75"`);

export const PAYOUT_STATUSES = [
  'ok',
  'payout_address_missing',
  'token_missing',
  'rpc_error',
] as const;

export const AllocationSchema = z
  .object({
    seller: z.number().int().describe('Seller share in basis points'),
    platform: z.number().int().describe('Platform share in basis points'),
    total: z.literal(10_000).describe('Basis points of the whole'),
  })
  .describe('The split the payout contract enforces, fixed at its creation');

export const PayoutNowSchema = z
  .object({
    contract: z.string().describe('The payout contract to call'),
    method: z.string().describe('Function name'),
    signature: z.string().describe('Solidity signature of the function'),
    args: z
      .array(z.string())
      .describe(
        'args[0] (the token) exactly as given; args[1] "0" (minimum forwarded); args[2]: replace with your own address',
      ),
  })
  .describe(
    'A transaction anyone may send to forward the pending balance now; the sender pays gas, gains nothing and cannot redirect funds',
  );
export type PayoutNow = z.infer<typeof PayoutNowSchema>;

export const PayoutEntrySchema = z.object({
  chain: ChainSchema,
  settlement_network: z.string().describe('CAIP-2 network, e.g. eip155:8453'),
  currency: z.literal('USDC'),
  payout_address: z.string().nullable().describe('Your payout contract on this chain'),
  token_address: z.string().describe('The USDC contract on this chain'),
  decimals: z.number().int(),
  pending_gross_raw: raw('Not yet paid out, before the platform share (the balance less the dust)'),
  pending_raw: raw('Your share of it: what you will receive'),
  pending: human('Your share'),
  allocation: AllocationSchema,
  status: z.enum(PAYOUT_STATUSES).describe('rpc_error: amounts read 0, the recipe still works'),
  payout_now: PayoutNowSchema.nullable().describe('null while the payout address is missing'),
});
export type PayoutEntry = z.infer<typeof PayoutEntrySchema>;

export const PayoutHistoryEntrySchema = z.object({
  chain: ChainSchema,
  currency: z.literal('USDC'),
  tx_hash: z.string(),
  decimals: z.number().int(),
  paid_gross_raw: raw('Forwarded, before the platform share'),
  paid_raw: raw('What you received'),
  paid: human('What you received'),
  paid_at: z.string(),
});
export type PayoutHistoryEntry = z.infer<typeof PayoutHistoryEntrySchema>;

export const SellerPayoutsSchema = z.object({
  payouts: z.array(PayoutEntrySchema).describe('One entry per supported chain'),
  payout_history: z
    .array(PayoutHistoryEntrySchema)
    .describe('The last 50 payouts, newest first; total earned is the sum of paid_raw'),
});
export type SellerPayouts = z.infer<typeof SellerPayoutsSchema>;

export const RevenueByCurrencySchema = z.object({
  currency: z.literal('USDC'),
  decimals: z.number().int(),
  sales_count: z.number().int(),
  gross_raw: raw('Paid by buyers'),
  gross: human('Paid by buyers'),
  seller_share_raw: raw('Your share of it, at your payout contracts’ allocation'),
  seller_share: human('Your share'),
});

export const RecentSaleSchema = z.object({
  order_id: z.uuid(),
  item_id: z.uuid(),
  title: z.string(),
  currency: z.literal('USDC'),
  amount_raw: raw('Paid by the buyer'),
  amount: human('Paid by the buyer'),
  chain: ChainSchema,
  completed_at: z.string(),
});

export const SellerStatsSchema = z.object({
  wallet_address: z.string(),
  items: z
    .object({
      ...Object.fromEntries(ITEM_STATUSES.map((s) => [s, z.number().int()])),
      total: z.number().int(),
    } as Record<(typeof ITEM_STATUSES)[number] | 'total', z.ZodNumber>)
    .describe('Your listings by status (purged ones are gone)'),
  revenue: z.object({
    sales_count: z.number().int().describe('Completed sales'),
    by_currency: z.array(RevenueByCurrencySchema),
  }),
  recent_sales: z.array(RecentSaleSchema).describe('The latest ten completed sales, newest first'),
});
export type SellerStats = z.infer<typeof SellerStatsSchema>;

/** Revision A payout statuses (spec 2.7): the linked wallet, the contract, the token, the read. */
export const PAYOUT_STATUSES_A = [
  'ok',
  'wallet_missing',
  'contract_missing',
  'token_missing',
  'rpc_error',
] as const;

/** Revision A: one chain/token balance of the payout contract, keyed by the seller's wallet. */
export const PayoutEntryASchema = z.object({
  chain: z.enum(['base', 'polygon']),
  settlement_network: z.string(),
  seller_wallet: z
    .string()
    .nullable()
    .describe('Your wallet linked on this chain (null: wallet_missing)'),
  currency: z.literal('USDC'),
  token_address: z.string(),
  payout_address: z.string().nullable().describe('The payout contract holding the balance'),
  decimals: z.number(),
  pending_gross_raw: z.string(),
  pending_raw: z.string().describe('Your share, raw units'),
  pending: z.string().describe('Your share, USDC'),
  amount: z
    .string()
    .describe(
      'Your pending share in USDC, human-readable (e.g. "1.5"): the same figure as pending',
    ),
  status: z.enum(PAYOUT_STATUSES_A),
});
export type PayoutEntryA = z.infer<typeof PayoutEntryASchema>;

export const SellerPayoutsASchema = z.object({ payouts: z.array(PayoutEntryASchema) });
export type SellerPayoutsA = z.infer<typeof SellerPayoutsASchema>;
