import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { chainOfNetwork } from '../../src/wire/chains.js';
import { toUsdc } from '../../src/wire/money.js';
import { LimitExceeded, type LimitRefusal } from '../state.js';
import type { McpDeps } from '../deps.js';

/**
 * The spending gate every paying tool goes through before anything is signed: the operator's
 * limits (per purchase, per rolling 24 hours from the persisted ledger, listing-fee ceiling), then
 * a human's confirmation above the threshold when the client supports elicitation, then a
 * reservation in the ledger. A refusal signs nothing and says which limit and who can raise it.
 */
export class PaymentRefused extends Error {
  constructor(readonly text: string) {
    super(text);
    this.name = 'PaymentRefused';
  }
}

const OPERATOR =
  'Only the operator who runs this MCP server can raise it (set the key in its environment and restart); nothing was signed or charged.';

export function limitText(r: LimitRefusal, usdc: number): string {
  switch (r.limit) {
    case 'per_purchase':
      return `The price ${usdc} USDC is above this server's cap of ${r.limitUsdc} USDC per purchase (MCP_MAX_PAYMENT_USDC). ${OPERATOR}`;
    case 'listing_fee':
      return `The listing fee ${usdc} USDC is above this server's listing-fee ceiling of ${r.limitUsdc} USDC (MCP_MAX_LISTING_FEE_USDC). ${OPERATOR}`;
    case 'daily':
      return (
        `Paying ${usdc} USDC would pass this server's budget of ${r.limitUsdc} USDC per rolling 24 hours (MCP_DAILY_LIMIT_USDC): ` +
        `${r.spentUsdc ?? 0} USDC already spent${r.frees_at ? `, the oldest of it leaves the window at ${r.frees_at}` : ''}. ${OPERATOR}`
      );
  }
}

/** The largest amount a prompt asks for, in USDC (every chain asks the same price). */
export function promptPriceUsdc(required: { accepts: Array<{ amount: string }> }): number {
  const micro = required.accepts.reduce(
    (m, a) => (BigInt(a.amount) > m ? BigInt(a.amount) : m),
    0n,
  );
  return toUsdc(micro);
}

export interface PaymentIntent {
  kind: 'purchase' | 'listing_fee';
  usdc: number;
  /** Item bought or listed (a title for a new listing). */
  ref: string;
  /** Shown to the human: what, from whom, on which chain. */
  summary: string;
}

/**
 * Checks the limits, asks the human when needed, and reserves the payment in the ledger.
 * Returns the reservation id (release it when nothing was charged).
 */
export async function authorizePayment(
  server: McpServer,
  deps: McpDeps,
  wallet: string,
  intent: PaymentIntent,
): Promise<string> {
  const { limits, state } = deps;
  const precheck = async () => {
    // a dry run: reserve and release at once, so the human is never asked about a refused payment
    const id = await state.reserve(wallet, intent.kind, intent.usdc, intent.ref, limits);
    await state.release(id);
  };
  try {
    await precheck();
  } catch (err) {
    if (err instanceof LimitExceeded) throw new PaymentRefused(limitText(err.refusal, intent.usdc));
    throw err;
  }
  if (intent.kind === 'purchase' && intent.usdc > limits.confirmAbove) {
    await confirmWithHuman(server, intent, limits.confirmAbove);
  }
  try {
    return await state.reserve(wallet, intent.kind, intent.usdc, intent.ref, limits);
  } catch (err) {
    if (err instanceof LimitExceeded) throw new PaymentRefused(limitText(err.refusal, intent.usdc));
    throw err;
  }
}

async function confirmWithHuman(
  server: McpServer,
  intent: PaymentIntent,
  threshold: number,
): Promise<void> {
  if (!server.server.getClientCapabilities()?.elicitation) {
    throw new PaymentRefused(
      `This purchase costs ${intent.usdc} USDC, above ${threshold} USDC (MCP_CONFIRM_ABOVE_USDC), so a human must confirm it, ` +
        'and this MCP client cannot ask (it does not support elicitation). Nothing was signed. Ask the user to buy it ' +
        'from a client that supports elicitation, or the operator to raise MCP_CONFIRM_ABOVE_USDC.',
    );
  }
  const answer = await server.server.elicitInput({
    message: `Confirm a payment of ${intent.usdc} USDC: ${intent.summary}. Nothing is signed unless you confirm.`,
    requestedSchema: {
      type: 'object',
      properties: {
        confirm: {
          type: 'boolean',
          title: `Pay ${intent.usdc} USDC`,
          description: intent.summary,
        },
      },
      required: ['confirm'],
    },
  });
  if (answer.action !== 'accept' || answer.content?.confirm !== true) {
    throw new PaymentRefused(
      `The user did not confirm the payment of ${intent.usdc} USDC (${answer.action}). Nothing was signed or charged; do not retry unless the user asks.`,
    );
  }
}

/** "base" for the network a prompt would be signed on (the client's choice, else the first). */
export function chainOf(
  required: { accepts: Array<{ network: string }> },
  preferred?: string,
): string {
  const req =
    required.accepts.find((a) => chainOfNetwork(a.network) === preferred) ?? required.accepts[0];
  return (req && chainOfNetwork(req.network)) ?? req?.network ?? 'unknown';
}
