import type { ZodType } from 'zod';
import type { Config } from '../../config.js';
import type { Db } from '../../db/index.js';
import type { Chain } from '../../wire/chains.js';
import {
  AcquireBodySchema,
  AcquireResponseSchema,
  type AcquireBody,
  type AcquireResponse,
  type BuyResponse,
  type OrderLinks,
  type PublicAcquireAResponse,
} from '../../wire/orders.js';
import type { PaidOption } from '../../x402/guard.js';
import type { AcquireResult } from './orders.js';

export type AnyAcquireResponse = AcquireResponse | PublicAcquireAResponse | BuyResponse;

/**
 * How a purchase is asked for and answered, per contract revision: Revision B's acquire (the
 * default, below), or Revision A's public acquire or keyed `POST /api/v1/buy`
 * (src/domain/revision-a/acquire-mode.ts). Each revision is one object; the purchase never asks
 * which revision it serves.
 */
export interface AcquireMode {
  /** The route's body and answer (wire schemas), described in the prompt's bazaar entry. */
  schemas: { body: ZodType; response: ZodType };
  /** Revision A keyed purchase: the buyer is this agent (the key's), whoever signs the payment. */
  buyerId?: string;
  /** Fields of the order example after `download_url` (an invoice link in B). */
  invoiceExample(base: string): Record<string, unknown>;
  /** Fields of the order example after `expires_in` (A's public acquire: the buyer account). */
  buyerAccountExample(base: string): Record<string, unknown>;
  /** The body of the prompt and completion examples (A's keyed route names the item in it). */
  completionTarget(itemId: string, chain: Chain): Record<string, unknown>;
  /** The route's path parameters (none on A's keyed route: the item is in the body). */
  pathParams(itemId: string): { pathParams?: { uuid: string } };
  /** Fields a prompt request must carry (A's keyed route: the item). */
  promptRequired: { required_fields?: string[] };
  /** Completion fields required besides the legal flags (A: the chain; keyed: the item too). */
  completionRequired: string[];
  /** The discovery extension as this revision's clients read it (A: `input` also at top level). */
  discoveryShape<D extends { info: { input: unknown } }>(discovery: D): D;
  /** The prompt's extensions, by catalog name. */
  extensions(
    discovery: unknown,
    config: Pick<Config, 'DISCOVERY_CATALOG_NAME'>,
  ): Record<string, unknown>;
  /**
   * Where the buyer gets fresh links of an order (`{order_id}` as written), without paying
   * again: told by `link_expired` and by a purchase replayed after its window.
   */
  freshLinks: string;
  /** The chain a signature must be for, when the completion names one (A). */
  completionChain(body: AcquireBody): Chain | undefined;
  /** Checks before the signature is verified, besides the legal flags (A: the chain). */
  beforeVerify(body: AcquireBody, options: PaidOption[]): void;
  /**
   * Checks of the verified payer before anything is claimed or settled (A: a wallet linked to the
   * seller's account is the seller; the keyed purchase is paid by a wallet of the key's account).
   */
  payerCheck?(sql: Db, payer: string, sellerId: string): Promise<void>;
  /** The purchase answer. */
  response(
    config: Pick<Config, 'PUBLIC_BASE_URL'>,
    result: AcquireResult,
    links: OrderLinks,
  ): AnyAcquireResponse;
}

/** Fresh links by the revision's order route, or by signing in on the item's acquire route. */
export const SIGNED_IN_AGAIN = (orderRoute: string): string =>
  `${orderRoute}, or by sending the item's acquire again with a SIGN-IN-WITH-X proof of the paying wallet (never pay again)`;

/** Revision B (the default): wallet identity, invoice link, `{ order_id, ...links }`. */
export const revisionBAcquire: AcquireMode = {
  schemas: { body: AcquireBodySchema, response: AcquireResponseSchema },
  invoiceExample: (base) => ({
    invoice_url: `${base}/api/v1/invoices/00000000-0000-4000-8000-000000000000?exp=0&sig=...`,
  }),
  buyerAccountExample: () => ({}),
  completionTarget: (_itemId, chain) => ({ chain }),
  pathParams: (itemId) => ({ pathParams: { uuid: itemId } }),
  promptRequired: {},
  completionRequired: [],
  discoveryShape: (discovery) => discovery,
  extensions: (discovery) => ({ bazaar: discovery }),
  freshLinks: SIGNED_IN_AGAIN(
    'GET /api/v1/orders/{order_id} with an identity proof of the buying wallet',
  ),
  completionChain: () => undefined,
  beforeVerify: () => {},
  response: (_config, result, links) => ({ order_id: result.orderId, ...links }),
};
