/**
 * What a 402 prompt says (spec 1.5, 7.1): the x402 v2 `PaymentRequirements` a server issues for one
 * chain, and the `PaymentRequired` body (`{ error: "payment_required", message, x402Version: 2,
 * resource, accepts, extensions? }`) with the `PAYMENT-REQUIRED` header carrying the same JSON in
 * base64 (@x402/core's codec, ./codec.ts) and `Cache-Control: no-store`. The guard (./guard.ts)
 * issues these and accepts only signatures made from one of them (`issuedRequirementFor`).
 */
import { createHmac } from 'node:crypto';
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from '@x402/core/types';
import { getAddress, type Address } from 'viem';
import { BoundedCache } from '../bounded-cache.js';
import { AppError, ERROR_CATALOG } from '../errors.js';
import type { Chain } from '../wire/chains.js';
import { atomicAmount, type Micro } from '../wire/money.js';
import { encodePaymentRequiredHeader } from './codec.js';
import type { PaymentNetworks } from './networks.js';

export const X402_VERSION = 2;
/**
 * Prompts larger than this lose their largest `extensions` in the header, one by one until it fits
 * (Node clients fail near 16 KB); the body keeps them all.
 */
export const MAX_PAYMENT_REQUIRED_HEADER = 8 * 1024;

/** What one chain charges: the domain's side of a requirement. */
export interface PaidOption {
  chain: Chain;
  payTo: string;
  amount: Micro;
}

export interface PaidOffer {
  /** One entry per payable chain, in prompt order (put a hinted chain first). */
  options: PaidOption[];
  description: string;
  /** Catalogue tags for the prompt's `resource` (at most 5 of at most 32 printable ASCII). */
  tags?: string[];
  /**
   * Extra x402 extensions for the prompt (e.g. `bazaar` discovery metadata). A function is called
   * only when a prompt is written, so a signed completion does not build them.
   */
  extensions?: Record<string, unknown> | (() => Record<string, unknown>);
  /** Overrides the resource key (default: `METHOD /path`, query excluded). */
  resource?: string;
  /**
   * Fields carried in every requirement's `extra` that a signature must echo exactly (e.g. the
   * item id): a signature made from another resource's prompt cannot complete this one.
   */
  bind?: Record<string, string>;
  /** Runs before the 402 prompt is issued (checks that make a prompt pointless). */
  beforePrompt?: () => Promise<void>;
  /** Runs on a signed completion before the signature is verified (e.g. required legal flags). */
  beforeVerify?: () => void | Promise<void>;
  /**
   * The chain the completion names (Revision A's required `chain`): a signature for another of
   * the offered chains is refused as `chain_mismatch` before anything settles.
   */
  completionChain?: Chain;
  /**
   * Sign-in-with-x instead of payment (`POST .../acquire`: a wallet that already bought it): the
   * prompt advertises the `sign-in-with-x` extension, and a verified signer for whom this answers
   * true is served without paying (src/x402/guard.ts `signIn`).
   */
  signIn?: (payer: string) => Promise<boolean>;
}

/** The path of a request URL (query excluded): resources are named by it. */
export function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

/** The zero-value recipient for one route and resource: an address only this server derives. */
export function identityPayTo(secret: Buffer, resource: string): Address {
  const h = createHmac('sha256', secret).update(`x402-identity:v1:${resource}`).digest('hex');
  return getAddress(`0x${h.slice(0, 40)}`);
}

/** The requirements this server issues: `exact` USDC on a configured network, payTo checksummed. */
export class RequirementIssuer {
  /** Checksummed recipients (each costs a Keccak hash): the few payout addresses in use. */
  private readonly checksummed = new BoundedCache<string, string>(4096);

  constructor(
    private readonly networks: PaymentNetworks,
    private readonly maxTimeoutSeconds: number,
  ) {}

  /** One chain's requirement; `bind` goes into `extra`, which a signature must echo exactly. */
  requirement(
    chain: Chain,
    payTo: string,
    amount: Micro,
    bind: Record<string, string> = {},
  ): PaymentRequirements {
    const net = this.networks[chain];
    return {
      scheme: 'exact',
      network: net.network,
      asset: net.asset,
      amount: atomicAmount(amount),
      payTo: this.checksummed.get(payTo, getAddress),
      maxTimeoutSeconds: this.maxTimeoutSeconds,
      extra: { name: net.eip712.name, version: net.eip712.version, ...bind },
    };
  }
}

/**
 * The issued requirement a payload's `accepted` was made from, or why none was: same network,
 * asset, payTo and amount, every `extra` field the offer bound (the item id) unchanged, and an
 * echoed `resource.url` (when sent) of this route (a prompt of another listing cannot pay here).
 */
export function issuedRequirementFor(
  issued: PaymentRequirements[],
  payload: PaymentPayload,
  resourceUrl: string,
): { requirement: PaymentRequirements } | { mismatch: string } {
  const accepted = payload.accepted;
  const requirement = issued.find((r) => r.network === accepted.network);
  if (!requirement) return { mismatch: 'invalid_exact_evm_network_mismatch' };
  const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
  if (
    !same(accepted.asset, requirement.asset) ||
    !same(accepted.payTo, requirement.payTo) ||
    accepted.amount !== requirement.amount
  ) {
    return { mismatch: 'requirements_not_issued' };
  }
  for (const [key, value] of Object.entries(requirement.extra ?? {})) {
    if (accepted.extra?.[key] !== value) return { mismatch: `resource_mismatch_${key}` };
  }
  if (payload.resource?.url !== undefined && payload.resource.url !== resourceUrl) {
    return { mismatch: 'resource_mismatch_url' };
  }
  return { requirement };
}

/** Service metadata a catalogue shows beside a prompt's resource (x402 bazaar, 2.27 types). */
export interface ServiceMetadata {
  serviceName: string;
  iconUrl?: string;
  tags?: string[];
}

/**
 * The 402 body (the x402 PaymentRequired, plus `error` and `message`) and its base64 header, which
 * sheds its largest `extensions` entries while it would pass MAX_PAYMENT_REQUIRED_HEADER.
 */
export function paymentRequired(
  resourceUrl: string,
  accepts: PaymentRequirements[],
  description: string,
  extensions?: Record<string, unknown>,
  service?: ServiceMetadata,
): { body: PaymentRequired & { error: string }; header: string } {
  const body = {
    error: 'payment_required',
    message: ERROR_CATALOG.payment_required[1],
    x402Version: X402_VERSION,
    resource: {
      url: resourceUrl,
      description,
      mimeType: 'application/json',
      ...(service && { serviceName: service.serviceName }),
      ...(service?.tags?.length && { tags: service.tags }),
      ...(service?.iconUrl && { iconUrl: service.iconUrl }),
    },
    accepts,
    ...(extensions && { extensions }),
  };
  let header = encodePaymentRequiredHeader(body);
  if (header.length > MAX_PAYMENT_REQUIRED_HEADER && extensions) {
    // the largest entries go first, so the small protocol ones (payment-identifier) stay
    const { extensions: _all, ...lean } = body;
    const kept = { ...extensions };
    const largestFirst = Object.keys(kept).sort(
      (a, b) => JSON.stringify(kept[b]).length - JSON.stringify(kept[a]).length,
    );
    for (const key of largestFirst) {
      delete kept[key];
      const rest = Object.keys(kept).length > 0 ? { ...lean, extensions: kept } : lean;
      header = encodePaymentRequiredHeader(rest);
      if (header.length <= MAX_PAYMENT_REQUIRED_HEADER) break;
    }
  }
  return { body, header };
}

/** One request's prompt: the requirements issued for it, as the 402 or as the header to re-sign from. */
export class Prompt {
  constructor(
    readonly resourceUrl: string,
    readonly issued: PaymentRequirements[],
    private readonly description: string,
    /** A function is called only when a prompt is written (a signed completion builds none). */
    private readonly extensions?: Record<string, unknown> | (() => Record<string, unknown>),
    private readonly service?: ServiceMetadata,
  ) {}

  private written() {
    const ext = typeof this.extensions === 'function' ? this.extensions() : this.extensions;
    return paymentRequired(this.resourceUrl, this.issued, this.description, ext, this.service);
  }

  /** The 402 `payment_required` error that carries the prompt (body and header, never cached). */
  error(): AppError {
    const { body, header } = this.written();
    const { error: _code, ...details } = body;
    return new AppError('payment_required', {
      details,
      headers: { 'PAYMENT-REQUIRED': header, 'Cache-Control': 'no-store' },
    });
  }

  /** The `PAYMENT-REQUIRED` header alone (sent with a refused signature, for re-signing). */
  readonly header = (): string => this.written().header;
}
