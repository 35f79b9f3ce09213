import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { ChainSchema, chainOfNetwork, type Chain } from '../../src/wire/chains.js';
import { PreviewSummarySchema } from '../../src/wire/previews.js';
import type { McpDeps } from '../deps.js';
import { promptPriceUsdc } from './paying.js';
import { apiFailure, success } from './results.js';

export const QuoteSchema = z.object({
  item_id: z.string(),
  title: z.string().optional(),
  seller_username: z.string().optional(),
  price_usdc: z.number().describe('What acquire_item would pay, in USDC'),
  currency: z.literal('USDC'),
  chains: z
    .array(
      z.object({
        chain: z.string().describe('"base" or "polygon"'),
        network: z.string().describe('CAIP-2 network id'),
        amount_raw: z.string().describe('Exact amount in USDC base units (6 decimals)'),
        asset: z.string().describe('USDC contract'),
        pay_to: z.string().describe('Recipient the authorization would name'),
      }),
    )
    .describe('Where it can be paid; the first is the default'),
  legal: z
    .object({
      policy: z.object({ version: z.string(), url: z.string() }),
      license: z.object({ version: z.string(), url: z.string() }),
    })
    .optional()
    .describe('The terms a purchase accepts (acquire_item needs accept_terms: true)'),
  valid_for_seconds: z.number().describe('How long a signed authorization would stay valid'),
  limits: z.object({
    per_purchase_usdc: z.number(),
    daily_limit_usdc: z.number(),
    spent_last_24h_usdc: z.number().optional(),
    confirm_above_usdc: z.number(),
    within_limits: z.boolean().describe('False: acquire_item would refuse before signing'),
    needs_human_confirmation: z.boolean(),
  }),
  preview: PreviewSummarySchema.optional().describe(
    'What the archive holds (files, lines, top languages, licence); preview_item shows more',
  ),
  already_bought: z
    .object({ order_id: z.string(), bought_at: z.string() })
    .optional()
    .describe('This wallet bought it before: acquire_item refuses unless buy_again is true'),
});

export function registerQuoteItem(server: McpServer, deps: McpDeps): void {
  server.registerTool(
    'quote_item',
    {
      title: 'Quote a purchase',
      description:
        "Reads a listing's purchase prompt (the x402 402 answer) as a quote: price in USDC, payable chains with exact amounts, " +
        'the legal terms (URLs and versions) a purchase accepts, whether this server would pay it within its spending limits, ' +
        'and what the archive holds (files, lines, top languages, licence). ' +
        'Use it before acquire_item to show the user what they would pay. Free: nothing is signed and nothing moves.',
      inputSchema: {
        item_id: z.uuid().describe('Listing id (a uuid), as returned by search_items'),
        chain: ChainSchema.optional().describe(
          'Preferred chain, "base" or "polygon" (listed first when the seller accepts it)',
        ),
      },
      outputSchema: QuoteSchema,
      annotations: {
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
    async ({ item_id, chain }) => {
      try {
        const quote = await readQuote(deps.catalog, item_id, chain);
        const price = quote.price_usdc;
        const wallet = deps.wallet ? await deps.wallet() : undefined;
        const spent = wallet ? await deps.state.spentLast24h(wallet.address) : undefined;
        const earlier = wallet ? await deps.state.orderOfItem(wallet.address, item_id) : undefined;
        const { limits } = deps;
        return success({
          ...quote,
          limits: {
            per_purchase_usdc: limits.perPurchase,
            daily_limit_usdc: limits.daily,
            ...(spent !== undefined && { spent_last_24h_usdc: spent }),
            confirm_above_usdc: limits.confirmAbove,
            within_limits:
              price <= limits.perPurchase && (spent ?? 0) + price <= limits.daily + 1e-9,
            needs_human_confirmation: price > limits.confirmAbove,
          },
          ...(earlier && {
            already_bought: { order_id: earlier.order_id, bought_at: earlier.bought_at },
          }),
        });
      } catch (err) {
        return apiFailure(err, 'quote_item', deps.baseUrl);
      }
    },
  );
}

/**
 * A listing's purchase prompt read as a quote (price, chains with exact amounts and recipients,
 * legal terms, what the archive holds): the part the local and the hosted quote_item share.
 */
export async function readQuote(
  catalog: Pick<McpDeps['catalog'], 'quote' | 'getItem'>,
  itemId: string,
  chain: Chain | undefined,
) {
  const [prompt, item] = await Promise.all([
    catalog.quote(itemId, chain),
    catalog.getItem(itemId).catch(() => undefined),
  ]);
  const info = prompt.extensions?.bazaar?.info;
  const title = item?.metadata.title ?? info?.item?.title;
  return {
    item_id: itemId,
    ...(title && { title }),
    ...(item?.metadata.seller_username && { seller_username: item.metadata.seller_username }),
    price_usdc: promptPriceUsdc(prompt),
    currency: 'USDC' as const,
    chains: prompt.accepts.map((a) => ({
      chain: chainOfNetwork(a.network) ?? a.network,
      network: a.network,
      amount_raw: a.amount,
      asset: a.asset,
      pay_to: a.payTo,
    })),
    ...(info?.legal && { legal: info.legal }),
    valid_for_seconds: Math.max(...prompt.accepts.map((a) => a.maxTimeoutSeconds)),
    ...(item?.preview && { preview: item.preview }),
  };
}
