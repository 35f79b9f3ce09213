import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { chainOfNetwork } from '../../src/wire/chains.js';
import { toUsdc } from '../../src/wire/money.js';
import { LimitExceeded, type LimitRefusal } from '../state.js';
import type { McpDeps } from '../deps.js';
import { Cancelled } from './progress.js';

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
  /** The requirement that will be signed (the marketplace's answer): recipient and asset. */
  offer?: { payTo: string; asset: string; network: string };
}

/** The requirement the client signs for a prompt: the preferred chain's, else the first. */
export function offerOf(
  required: { accepts: Array<{ payTo: string; asset: string; network: string }> },
  preferred?: string,
): PaymentIntent['offer'] {
  return (
    required.accepts.find((a) => chainOfNetwork(a.network) === preferred) ?? required.accepts[0]
  );
}

/** Seller text inside a confirmation: control characters out, at most 80 characters. */
export function quoted(text: string): string {
  // eslint-disable-next-line no-control-regex
  const clean = text.replace(/[\u0000-\u001f\u007f-\u009f"]/g, ' ').trim();
  return clean.length > 80 ? `${clean.slice(0, 79)}…` : clean;
}

/** What each MCP session (one connected server instance) has signed for, in USDC. */
const sessionSpent = new WeakMap<McpServer, number>();
/**
 * Payments counted in a session's total that may still be given back, by ledger spend id: while
 * signing is under way, and while a settlement is pending (a later acquire_item, in this session
 * or another, may learn it was released). The amount goes back to the session that counted it.
 */
const counted = new Map<string, { server: WeakRef<McpServer>; usdc: number }>();

/**
 * Gives a reservation back: nothing was charged (refused before settlement, cancelled before
 * signing, or a pending settlement released), so it leaves the 24-hour ledger and the total of
 * the session that counted it alike.
 */
export async function releasePayment(deps: McpDeps, reservation: string): Promise<void> {
  await deps.state.release(reservation);
  const held = counted.get(reservation);
  if (!held) return;
  counted.delete(reservation);
  const server = held.server.deref();
  if (server) sessionSpent.set(server, Math.max(0, (sessionSpent.get(server) ?? 0) - held.usdc));
}

/** Marks a reservation as paid: it stays in the 24-hour ledger and the session's total. */
export async function spentPayment(deps: McpDeps, reservation: string): Promise<void> {
  await deps.state.spent(reservation);
  counted.delete(reservation);
}

/**
 * A payment whose settlement is pending: counted as spent (it may still settle), in the ledger
 * and the session's total, until releasePayment (it never settled) or spentPayment (it did).
 */
export async function pendingPayment(deps: McpDeps, reservation: string): Promise<void> {
  await deps.state.spent(reservation);
}

/** The operator's allow-lists of recipients and assets, against the marketplace's answer. */
function checkAllowed(deps: McpDeps, intent: PaymentIntent): void {
  const allow = deps.allow;
  const offer = intent.offer;
  if (!allow || !offer) return;
  if (allow.payTo.length && !allow.payTo.includes(offer.payTo.toLowerCase()))
    throw new PaymentRefused(
      `The marketplace asks to pay ${offer.payTo}, which is not in this server's recipient allow-list (MCP_ALLOWED_PAY_TO). ${OPERATOR}`,
    );
  if (allow.assets.length && !allow.assets.includes(offer.asset.toLowerCase()))
    throw new PaymentRefused(
      `The marketplace asks for asset ${offer.asset} on ${offer.network}, which is not in this server's asset allow-list (MCP_ALLOWED_ASSETS). ${OPERATOR}`,
    );
}

/**
 * Checks the limits, asks the human when needed, and reserves the payment in the ledger.
 * Returns the reservation id (release it when nothing was charged). `signal` (the tool call's)
 * withdraws a pending question to the human when the call is cancelled, and a call cancelled by
 * the time the reservation is made gives it back and throws `Cancelled`: nothing is signed.
 */
export async function authorizePayment(
  server: McpServer,
  deps: McpDeps,
  wallet: string,
  intent: PaymentIntent,
  signal?: AbortSignal,
): Promise<string> {
  const { limits, state } = deps;
  checkAllowed(deps, intent);
  const sessionSoFar = sessionSpent.get(server) ?? 0;
  if (limits.perSession !== undefined && sessionSoFar + intent.usdc > limits.perSession + 1e-9)
    throw new PaymentRefused(
      `Paying ${intent.usdc} USDC would pass this server's cap of ${limits.perSession} USDC per MCP session (MCP_SESSION_LIMIT_USDC): ` +
        `${sessionSoFar} USDC already signed in this session. A new session (reconnecting) starts again, within the 24-hour budget. ${OPERATOR}`,
    );
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
    await confirmWithHuman(server, deps, wallet, intent, limits.confirmAbove, signal);
  }
  try {
    const id = await state.reserve(wallet, intent.kind, intent.usdc, intent.ref, limits);
    sessionSpent.set(server, (sessionSpent.get(server) ?? 0) + intent.usdc);
    counted.set(id, { server: new WeakRef(server), usdc: intent.usdc });
    if (signal?.aborted) {
      // the last moment to stop: nothing is signed yet, so the reservation goes back
      await releasePayment(deps, id);
      throw new Cancelled();
    }
    return id;
  } catch (err) {
    if (err instanceof LimitExceeded) throw new PaymentRefused(limitText(err.refusal, intent.usdc));
    throw err;
  }
}

async function confirmWithHuman(
  server: McpServer,
  deps: McpDeps,
  wallet: string,
  intent: PaymentIntent,
  threshold: number,
  signal: AbortSignal | undefined,
): Promise<void> {
  if (!server.server.getClientCapabilities()?.elicitation) {
    const { approvals } = deps;
    if (approvals?.consume(wallet, intent.ref, intent.usdc)) return;
    if (approvals) {
      const { id, where } = approvals.request(
        wallet,
        intent.ref,
        intent.usdc,
        `Pay ${intent.usdc} USDC: ${intent.summary}`,
      );
      throw new PaymentRefused(
        `This purchase costs ${intent.usdc} USDC, above ${threshold} USDC (MCP_CONFIRM_ABOVE_USDC), so a human must approve it, ` +
          `and this MCP client cannot ask. Nothing was signed. Approval ${id} is waiting: ask the user to read the one-time code ${where} ` +
          `and tell it to you, then call confirm_purchase { approval_id: "${id}", code } and call acquire_item again with the same arguments ` +
          '(within 10 minutes). Never guess the code.',
      );
    }
    throw new PaymentRefused(
      `This purchase costs ${intent.usdc} USDC, above ${threshold} USDC (MCP_CONFIRM_ABOVE_USDC), so a human must confirm it, ` +
        'and this MCP client cannot ask (it does not support elicitation). Nothing was signed. Ask the user to buy it ' +
        'from a client that supports elicitation, or the operator to raise MCP_CONFIRM_ABOVE_USDC.',
    );
  }
  const answer = await server.server.elicitInput(
    {
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
    },
    signal && { signal },
  );
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
