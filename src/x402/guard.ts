/**
 * The x402 v2 guard: ONE mechanism for paid routes and zero-value identity routes. It knows no
 * marketplace rule: the domain describes a paid operation as an offer (what to charge, to whom,
 * on which chains, for which resource) and receives a verified payment back.
 *
 * - `identity(req)`: the zero-value proof of an `id402` route (src/http/identity.ts calls it):
 *   the verified wallet, lower-case; the nonce is spent, so a replay fails. Never settles.
 * - `paid(req, offer)`: no `PAYMENT-SIGNATURE` → throws the 402 prompt for the offer; with one →
 *   the verified payment (not settled, nonce not claimed: `payments.run` does both).
 *
 * Behaviour (spec 1.5, 2.9, 5.2, 7.1):
 * - The 402 body IS the x402 PaymentRequired (`{ error: "payment_required", message,
 *   x402Version: 2, resource, accepts, extensions? }`) and the `PAYMENT-REQUIRED` header carries
 *   the same JSON in base64 (@x402/core's codec, ./codec.ts), with `Cache-Control: no-store`. Identity prompts
 *   advertise amount "0" on every network.
 * - A signature is decoded (./codec.ts, as @x402/core does), validated as its v2 schema does
 *   (./payload-schema.ts), then accepted only when
 *   its `accepted` requirement is one this server issues for THIS route and resource: scheme,
 *   network, asset, payTo, amount and every `extra` field the offer binds (the item id), and its
 *   echoed `resource.url` (when sent) is this route's. The signed `to`, `value`, validity window
 *   and signer are then checked (viem EOA recovery; EIP-1271 / ERC-6492 through RPC when
 *   configured). Identity payTo is derived per route and resource from the server secret, so a
 *   signature made for one route never verifies on another. Failures: 402
 *   `payment_verification_failed` with a `reason` naming the mismatch, before anything settles.
 * - The retry of an authorization this server already claimed is let through past its validity
 *   window, so the buyer keeps hearing its outcome (pending, then the order) instead of a 402.
 *
 * Requests are any object with `method`, `url` and `headers` (a Fastify request fits), so the
 * guard carries no framework import.
 */
import { createHmac } from 'node:crypto';
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from '@x402/core/types';
import { getAddress, isAddressEqual, type Address, type Hex } from 'viem';
import { BoundedCache } from '../bounded-cache.js';
import type { Config } from '../config.js';
import { CHAINS, type Chain } from '../wire/chains.js';
import { AppError, ERROR_CATALOG } from '../errors.js';
import { decodePaymentSignatureHeader, encodePaymentRequiredHeader } from './codec.js';
import {
  checkAuthorization,
  parseExactEvmPayload,
  SMART_ACCOUNT_CHECK_UNAVAILABLE,
  verifiedExactPayload,
  verifyAuthorizationSignature,
  type Eip3009Authorization,
} from './eip3009.js';
import { networkByCaip2, type PaymentNetworks } from './networks.js';
import { parsePaymentPayloadV2 } from './payload-schema.js';
import { SignatureCheckUnavailable } from './smart-accounts.js';

export const X402_VERSION = 2;
/** Prompts larger than this lose their `extensions` in the header (Node clients fail near 16 KB). */
export const MAX_PAYMENT_REQUIRED_HEADER = 8 * 1024;

export interface GuardRequest {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
}

export interface PaidOption {
  chain: Chain;
  payTo: string;
  /** USDC base units (6 decimals). */
  amountMicro: number;
}

export interface PaidOffer {
  /** One entry per payable chain, in prompt order (put a hinted chain first). */
  options: PaidOption[];
  description: string;
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
}

/** A paid authorization that passed every off-chain check, ready for `payments.run`. */
export interface VerifiedPayment {
  /** Lower-case 0x address of the signer. */
  payer: string;
  chain: Chain;
  /** The requirement this server issued and the signature matches. */
  requirement: PaymentRequirements;
  /** The decoded payload with `accepted` pinned to `requirement` (what the facilitator receives). */
  payload: PaymentPayload;
  authorization: Eip3009Authorization;
  nonce: Hex;
  validBefore: Date;
  /** Route key the payment is bound to. */
  resource: string;
  amountMicro: number;
}

export interface GuardOptions {
  config: Pick<Config, 'PUBLIC_BASE_URL' | 'X402_MAX_TIMEOUT_SECONDS' | 'X402_CLOCK_SKEW_SECONDS'>;
  networks: PaymentNetworks;
  /** Single-use records of authorizations (src/domain/payments/store.ts). */
  nonces: {
    claimIdentityNonce(q: {
      payer: string;
      nonce: string;
      resource: string;
      validBefore: number;
    }): Promise<boolean>;
    isClaimed(payer: string, nonce: string): Promise<boolean>;
    /** The record of an authorization already used here (paid or identity), if any. */
    claimOf(payer: string, nonce: string): Promise<{ kind: string; resource: string } | undefined>;
  };
  /** Key for deriving per-route identity recipients. */
  secret: Buffer;
  now?: () => number;
}

export function paymentSignatureOf(req: GuardRequest): string | undefined {
  const raw = req.headers['payment-signature'];
  const v = Array.isArray(raw) ? raw[0] : raw;
  return v && v.trim() !== '' ? v.trim() : undefined;
}

export function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

/** 402 payment_verification_failed; the fresh prompt rides along in `PAYMENT-REQUIRED` for re-signing. */
const fail = (reason: string, promptHeader?: () => string) =>
  new AppError('payment_verification_failed', {
    reason,
    headers: {
      'Cache-Control': 'no-store',
      ...(promptHeader && { 'PAYMENT-REQUIRED': promptHeader() }),
    },
  });

/** 409: an authorization this server already used, sent with another request; nothing happens. */
export const authorizationAlreadyUsed = () =>
  new AppError('authorization_already_used', {
    message:
      'the authorization was already used for another request; nothing was stored or charged. Sign a fresh authorization for this request.',
  });

export class X402Guard {
  /** Checksummed recipients (each costs a Keccak hash): the few payout addresses in use. */
  private readonly checksummed = new BoundedCache<string, string>(4096);

  constructor(private readonly opts: GuardOptions) {}

  private checksum(address: string): string {
    return this.checksummed.get(address, getAddress);
  }

  private nowSeconds(): number {
    return Math.floor((this.opts.now?.() ?? Date.now()) / 1000);
  }

  /** The absolute URL a prompt names as its resource (query excluded). */
  resourceUrl(req: GuardRequest): string {
    return `${this.opts.config.PUBLIC_BASE_URL}${pathOf(req.url)}`;
  }

  resourceKey(req: GuardRequest): string {
    return `${req.method.toUpperCase()} ${pathOf(req.url)}`;
  }

  /** The zero-value recipient for one route and resource: an address only this server derives. */
  identityPayTo(resource: string): Address {
    const h = createHmac('sha256', this.opts.secret)
      .update(`x402-identity:v1:${resource}`)
      .digest('hex');
    return getAddress(`0x${h.slice(0, 40)}`);
  }

  private requirement(
    chain: Chain,
    payTo: string,
    amountMicro: number,
    bind: Record<string, string> = {},
  ): PaymentRequirements {
    const net = this.opts.networks[chain];
    return {
      scheme: 'exact',
      network: net.network,
      asset: net.asset,
      amount: String(amountMicro),
      payTo: this.checksum(payTo),
      maxTimeoutSeconds: this.opts.config.X402_MAX_TIMEOUT_SECONDS,
      extra: { name: net.eip712.name, version: net.eip712.version, ...bind },
    };
  }

  private paymentRequired(
    req: GuardRequest,
    accepts: PaymentRequirements[],
    description: string,
    extensions?: Record<string, unknown>,
  ): { body: PaymentRequired & { error: string }; header: string } {
    const body = {
      error: 'payment_required',
      message: ERROR_CATALOG.payment_required[1],
      x402Version: X402_VERSION,
      resource: {
        url: this.resourceUrl(req),
        description,
        mimeType: 'application/json',
      },
      accepts,
      ...(extensions && { extensions }),
    };
    let header = encodePaymentRequiredHeader(body);
    if (header.length > MAX_PAYMENT_REQUIRED_HEADER) {
      const { extensions: _dropped, ...lean } = body;
      header = encodePaymentRequiredHeader(lean);
    }
    return { body, header };
  }

  private prompt(
    req: GuardRequest,
    accepts: PaymentRequirements[],
    description: string,
    extensions?: Record<string, unknown>,
  ): AppError {
    const { body, header } = this.paymentRequired(req, accepts, description, extensions);
    const { error: _code, ...details } = body;
    return new AppError('payment_required', {
      details,
      headers: { 'PAYMENT-REQUIRED': header, 'Cache-Control': 'no-store' },
    });
  }

  /**
   * Decodes and checks a signature against the issued requirements. Returns the matching
   * requirement, the payload and the authorization; throws 402 payment_verification_failed.
   */
  private async check(
    signature: string,
    issued: PaymentRequirements[],
    resourceUrl: string,
    promptHeader: () => string,
    settleMarginSeconds: number,
  ): Promise<{
    requirement: PaymentRequirements;
    payload: PaymentPayload;
    auth: Eip3009Authorization;
    chain: Chain;
  }> {
    let decoded: unknown;
    try {
      decoded = decodePaymentSignatureHeader(signature);
    } catch {
      throw fail('invalid_payment_signature_header', promptHeader);
    }
    const payload = parsePaymentPayloadV2(decoded);
    if (!payload) throw fail('invalid_payload', promptHeader);
    const accepted = payload.accepted;
    if (accepted.scheme !== 'exact') throw fail('unsupported_scheme', promptHeader);
    // A request this authorization does not fit: refused as before, unless it is an authorization
    // already used here, for another request (another route, item or chain): that says so (409).
    const mismatch = async (reason: string): Promise<never> => {
      if (await this.usedElsewhere(payload)) throw authorizationAlreadyUsed();
      throw fail(reason, promptHeader);
    };
    const requirement = issued.find((r) => r.network === accepted.network);
    if (!requirement) return mismatch('invalid_exact_evm_network_mismatch');
    const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
    if (
      !same(accepted.asset, requirement.asset) ||
      !same(accepted.payTo, requirement.payTo) ||
      accepted.amount !== requirement.amount
    ) {
      return mismatch('requirements_not_issued');
    }
    // Bound to this resource: every field the offer put in `extra` must come back unchanged, and
    // an echoed resource must be this route's (a prompt of another listing cannot pay for this one).
    for (const [key, value] of Object.entries(requirement.extra ?? {})) {
      if (accepted.extra?.[key] !== value) return mismatch(`resource_mismatch_${key}`);
    }
    if (payload.resource?.url !== undefined && payload.resource.url !== resourceUrl) {
      return mismatch('resource_mismatch_url');
    }
    const exact = parseExactEvmPayload(payload.payload);
    if (!exact) throw fail('invalid_exact_evm_payload', promptHeader);
    const reason = checkAuthorization(exact.authorization, requirement, {
      nowSeconds: this.nowSeconds(),
      skewSeconds: this.opts.config.X402_CLOCK_SKEW_SECONDS,
      settleMarginSeconds,
    });
    const net = networkByCaip2(this.opts.networks, requirement.network)!;
    let signed: boolean;
    try {
      signed = await verifyAuthorizationSignature(net, exact);
    } catch (e) {
      // a smart account's chain did not answer in time: not a verdict, the client may retry
      if (e instanceof SignatureCheckUnavailable)
        throw fail(SMART_ACCOUNT_CHECK_UNAVAILABLE, promptHeader);
      throw e;
    }
    if (!signed) throw fail('invalid_exact_evm_signature', promptHeader);
    // the recipient or amount of another request (the window is judged below)
    if (reason?.endsWith('_mismatch')) return mismatch(reason);
    if (reason) {
      // A retry of an authorization already claimed here is answered from its record (pending,
      // then the order), whatever its window says now; anything else must be signed afresh.
      const windowOnly = reason.includes('valid_before') && settleMarginSeconds > 0;
      const payer = exact.authorization.from.toLowerCase();
      if (!windowOnly || !(await this.opts.nonces.isClaimed(payer, exact.authorization.nonce))) {
        throw fail(reason, promptHeader);
      }
    }
    return {
      requirement,
      payload: {
        x402Version: X402_VERSION,
        ...(payload.resource && { resource: payload.resource }),
        accepted: requirement,
        payload: verifiedExactPayload(exact, payload.payload.authorization),
        ...(payload.extensions && { extensions: payload.extensions }),
      },
      auth: exact.authorization,
      chain: net.chain,
    };
  }

  /**
   * True when the payload is a validly signed authorization that this server already used (paid
   * or as an identity proof). Only asked for a payload that does not fit the request, so a
   * well-formed request pays nothing for it.
   */
  private async usedElsewhere(payload: PaymentPayload): Promise<boolean> {
    const net = networkByCaip2(this.opts.networks, payload.accepted.network);
    const exact = parseExactEvmPayload(payload.payload);
    if (!net || !exact) return false;
    if (!(await verifyAuthorizationSignature(net, exact).catch(() => false))) return false;
    const payer = exact.authorization.from.toLowerCase();
    return (await this.opts.nonces.claimOf(payer, exact.authorization.nonce)) !== undefined;
  }

  /**
   * Zero-value identity (spec 5.2): returns the verified signer, lower-case. Claims the nonce, so
   * a replay fails. Never creates an account and never settles.
   */
  async identity(
    req: GuardRequest,
    opts: { description?: string; resource?: string } = {},
  ): Promise<string> {
    const resource = opts.resource ?? this.resourceKey(req);
    const payTo = this.identityPayTo(resource);
    const issued = CHAINS.map((c) => this.requirement(c, payTo, 0));
    const description =
      opts.description ?? `Identity proof for ${resource} (zero-value, never settled)`;
    const signature = paymentSignatureOf(req);
    if (!signature) throw this.prompt(req, issued, description);
    const header = () => this.paymentRequired(req, issued, description).header;
    const { auth } = await this.check(signature, issued, this.resourceUrl(req), header, 0);
    const payer = auth.from.toLowerCase();
    const claimed = await this.opts.nonces.claimIdentityNonce({
      payer,
      nonce: auth.nonce,
      resource,
      validBefore: Number(auth.validBefore),
    });
    if (!claimed) throw fail('invalid_exact_evm_nonce_already_used', header);
    return payer;
  }

  /**
   * Paid x402: without a signature throws the 402 prompt for `offer`; with one returns the
   * verified payment (not yet settled, nonce not yet claimed: hand it to `payments.run`).
   */
  async paid(req: GuardRequest, offer: PaidOffer): Promise<VerifiedPayment> {
    if (offer.options.length === 0) throw new Error('paid offer without options');
    const issued = offer.options.map((o) =>
      this.requirement(o.chain, o.payTo, o.amountMicro, offer.bind),
    );
    const extensions = () =>
      typeof offer.extensions === 'function' ? offer.extensions() : offer.extensions;
    const signature = paymentSignatureOf(req);
    if (!signature) {
      await offer.beforePrompt?.();
      throw this.prompt(req, issued, offer.description, extensions());
    }
    await offer.beforeVerify?.();
    const header = () => this.paymentRequired(req, issued, offer.description, extensions()).header;
    const { requirement, payload, auth, chain } = await this.check(
      signature,
      issued,
      this.resourceUrl(req),
      header,
      5,
    );
    if (offer.completionChain !== undefined && chain !== offer.completionChain) {
      const payer = auth.from.toLowerCase();
      if (await this.opts.nonces.claimOf(payer, auth.nonce)) throw authorizationAlreadyUsed();
      throw fail('chain_mismatch', header);
    }
    return {
      payer: auth.from.toLowerCase(),
      chain,
      requirement,
      payload,
      authorization: auth,
      nonce: auth.nonce,
      validBefore: new Date(Number(auth.validBefore) * 1000),
      resource: offer.resource ?? this.resourceKey(req),
      amountMicro: Number(requirement.amount),
    };
  }
}

export function isSameAddress(a: string, b: string): boolean {
  return isAddressEqual(getAddress(a), getAddress(b));
}
