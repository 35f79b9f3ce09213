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
 * - The prompt is ./requirements.ts's; identity prompts advertise amount "0" on every network.
 * - A signature is decoded (./codec.ts, as @x402/core does), validated as its v2 schema does
 *   (./payload-schema.ts), then accepted only when its `accepted` requirement is one this server
 *   issued for THIS route and resource (./requirements.ts). The signed `to`, `value`, validity window
 *   and signer are then checked (viem EOA recovery; EIP-1271 / ERC-6492 through RPC when
 *   configured). Identity payTo is derived per route and resource from the server secret, so a
 *   signature made for one route never verifies on another. Failures: 402
 *   `payment_verification_failed` with a `reason` naming the mismatch, before anything settles.
 * - The retry of an authorization this server already claimed is let through past its validity
 *   window, so the buyer keeps hearing its outcome (pending, then the order) instead of a 402;
 *   and on the route it was claimed on, also when the route no longer offers what it signed
 *   (`claimed`: the claim answers it, nothing settles anew).
 *
 * Requests are any object with `method`, `url` and `headers` (a Fastify request fits), so the
 * guard carries no framework import.
 */
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import type { Hex } from 'viem';
import type { Config } from '../config.js';
import { CHAINS, type Chain } from '../wire/chains.js';
import { microOfAtomic, type Micro } from '../wire/money.js';
import { AppError } from '../errors.js';
import { decodePaymentSignatureHeader } from './codec.js';
import {
  checkAuthorization,
  parseExactEvmPayload,
  SMART_ACCOUNT_CHECK_UNAVAILABLE,
  verifiedExactPayload,
  verifyAuthorizationSignature,
  type Eip3009Authorization,
  type ExactEvmPayload,
} from './eip3009.js';
import { networkByCaip2, type PaymentNetworks } from './networks.js';
import { parsePaymentPayloadV2 } from './payload-schema.js';
import {
  identityPayTo,
  issuedRequirementFor,
  pathOf,
  Prompt,
  RequirementIssuer,
  X402_VERSION,
  type PaidOffer,
  type ServiceMetadata,
} from './requirements.js';
import { SignatureCheckUnavailable } from './smart-accounts.js';

/**
 * The x402 extensions' code (sign-in-with-x and payment-identifier: @x402/extensions, and with it
 * ajv, ~100 modules) loads at the guard's first use, not as the service starts (issue 25). Every
 * public method of the guard awaits it first; the private ones run after.
 */
type Extensions = typeof import('./siwx.js') & typeof import('./payment-identifier.js');
let ext: Extensions | undefined;
let loadingExt: Promise<Extensions> | undefined;
async function loadExtensions(): Promise<Extensions> {
  loadingExt ??= Promise.all([import('./siwx.js'), import('./payment-identifier.js')]).then(
    ([siwx, paymentIdentifier]) => (ext = { ...siwx, ...paymentIdentifier }),
  );
  return ext ?? loadingExt;
}
/** The extensions, inside a method that awaited loadExtensions. */
function loaded(): Extensions {
  if (!ext) throw new Error('x402 extensions used before they were loaded');
  return ext;
}

export type { PaidOffer, PaidOption } from './requirements.js';

export interface GuardRequest {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
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
  /** The amount signed for. */
  amount: Micro;
  /**
   * The client's idempotency key (`extensions["payment-identifier"].info.id`, issue 27), valid
   * format; `payments.run` answers a repeat of it with the payment it first came with.
   */
  paymentIdentifier?: string;
  /**
   * A retry of an authorization already claimed on this route, taken from the payload's own
   * `accepted` requirement (`X402Guard.claimed`) although it may no longer be offered: answered
   * from its claim only, never claimed or settled anew.
   */
  resumed?: true;
}

export interface GuardOptions {
  config: Pick<
    Config,
    | 'PUBLIC_BASE_URL'
    | 'X402_MAX_TIMEOUT_SECONDS'
    | 'X402_CLOCK_SKEW_SECONDS'
    | 'SERVICE_NAME'
    | 'SERVICE_ICON_URL'
  >;
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

function headerOf(req: GuardRequest, name: string): string | undefined {
  const raw = req.headers[name];
  const v = Array.isArray(raw) ? raw[0] : raw;
  return v && v.trim() !== '' ? v.trim() : undefined;
}

export function paymentSignatureOf(req: GuardRequest): string | undefined {
  return headerOf(req, 'payment-signature');
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

/**
 * A request without `PAYMENT-SIGNATURE`: the prompt (402 payment_required), unless it carries x402
 * v1's `X-PAYMENT`. A v1 client given the prompt again would sign the same way and loop, or report
 * a bare 402; it is told instead (402 payment_verification_failed, reason `invalid_x402_version`,
 * x402's own reason for it) with the v2 prompt alongside to sign. Nothing in the v1 header is read.
 */
const unsigned = (req: GuardRequest, prompt: Prompt): AppError =>
  headerOf(req, 'x-payment') ? fail('invalid_x402_version', prompt.header) : prompt.error();

/** 409: an authorization this server already used, sent with another request; nothing happens. */
export const authorizationAlreadyUsed = () =>
  new AppError('authorization_already_used', {
    message:
      'the authorization was already used for another request, whose payment stands; this request stored and charged nothing. Sign a fresh authorization for this request.',
  });

export class X402Guard {
  private readonly issuer: RequirementIssuer;

  constructor(private readonly opts: GuardOptions) {
    this.issuer = new RequirementIssuer(opts.networks, opts.config.X402_MAX_TIMEOUT_SECONDS);
  }

  private nowMs(): number {
    return this.opts.now?.() ?? Date.now();
  }

  private nowSeconds(): number {
    return Math.floor((this.opts.now?.() ?? Date.now()) / 1000);
  }

  /** The catalogue metadata of a prompt's resource: the service's name and icon, the offer's tags. */
  private service(tags?: string[]): ServiceMetadata {
    const { SERVICE_NAME, SERVICE_ICON_URL } = this.opts.config;
    return {
      serviceName: SERVICE_NAME,
      ...(SERVICE_ICON_URL && { iconUrl: SERVICE_ICON_URL }),
      ...(tags?.length && { tags }),
    };
  }

  /** The absolute URL a prompt names as its resource (query excluded). */
  resourceUrl(req: GuardRequest): string {
    return `${this.opts.config.PUBLIC_BASE_URL}${pathOf(req.url)}`;
  }

  resourceKey(req: GuardRequest): string {
    return `${req.method.toUpperCase()} ${pathOf(req.url)}`;
  }

  /**
   * Decodes and checks a signature against the issued requirements. Returns the matching
   * requirement, the payload and the authorization; throws 402 payment_verification_failed.
   */
  private async check(
    signature: string,
    prompt: Prompt,
    settleMarginSeconds: number,
  ): Promise<{
    requirement: PaymentRequirements;
    payload: PaymentPayload;
    auth: Eip3009Authorization;
    chain: Chain;
    paymentIdentifier: string | undefined;
  }> {
    const promptHeader = prompt.header;
    let decoded: unknown;
    try {
      decoded = decodePaymentSignatureHeader(signature);
    } catch {
      throw fail('invalid_payment_signature_header', promptHeader);
    }
    const payload = parsePaymentPayloadV2(decoded);
    if (!payload) throw fail('invalid_payload', promptHeader);
    const paymentIdentifier = loaded().paymentIdentifierOf(payload);
    const accepted = payload.accepted;
    if (accepted.scheme !== 'exact') throw fail('unsupported_scheme', promptHeader);
    // A request this authorization does not fit: refused as before, unless it is an authorization
    // already used here, for another request (another route, item or chain): that says so (409).
    const mismatch = async (reason: string): Promise<never> => {
      if (await this.usedElsewhere(payload)) throw authorizationAlreadyUsed();
      throw fail(reason, promptHeader);
    };
    const issuedOne = issuedRequirementFor(prompt.issued, payload, prompt.resourceUrl);
    if ('mismatch' in issuedOne) return mismatch(issuedOne.mismatch);
    const requirement = issuedOne.requirement;
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
      payload: verifiedPayload(payload, requirement, exact),
      auth: exact.authorization,
      chain: net.chain,
      paymentIdentifier,
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
    await loadExtensions();
    const resource = opts.resource ?? this.resourceKey(req);
    const payTo = identityPayTo(this.opts.secret, resource);
    const url = this.resourceUrl(req);
    // a sign-in proof is bound to the method too, as the zero-value proof is by its payTo
    const target = { route: this.resourceKey(req), uri: url };
    const prompt = new Prompt(
      url,
      CHAINS.map((c) => this.issuer.requirement(c, payTo, 0)),
      opts.description ?? `Identity proof for ${resource} (zero-value, never settled)`,
      // the same proof as a SIGN-IN-WITH-X header (./siwx.ts), for clients that sign in that way
      () => loaded().siwxChallenge(this.opts.secret, target, this.opts.networks, this.nowMs()),
      this.service(),
    );
    const siwx = headerOf(req, loaded().SIWX_HEADER);
    if (siwx) {
      const proof = await loaded().checkSiwx(siwx, target, {
        secret: this.opts.secret,
        networks: this.opts.networks,
        nowMs: this.nowMs(),
        skewSeconds: this.opts.config.X402_CLOCK_SKEW_SECONDS,
      });
      if ('refused' in proof) throw fail(proof.refused, prompt.header);
      const fresh = await this.opts.nonces.claimIdentityNonce({
        payer: proof.payer,
        nonce: proof.nonce,
        resource,
        validBefore: proof.expiresAt,
      });
      if (!fresh) throw fail('invalid_siwx_nonce_already_used', prompt.header);
      return proof.payer;
    }
    const signature = paymentSignatureOf(req);
    if (!signature) throw unsigned(req, prompt);
    const { auth } = await this.check(signature, prompt, 0);
    const payer = auth.from.toLowerCase();
    const claimed = await this.opts.nonces.claimIdentityNonce({
      payer,
      nonce: auth.nonce,
      resource,
      validBefore: Number(auth.validBefore),
    });
    if (!claimed) throw fail('invalid_exact_evm_nonce_already_used', prompt.header);
    return payer;
  }

  /**
   * Paid x402: without a signature throws the 402 prompt for `offer`; with one returns the
   * verified payment (not yet settled, nonce not yet claimed: hand it to `payments.run`).
   */
  private paidPrompt(req: GuardRequest, offer: PaidOffer): Prompt {
    const url = this.resourceUrl(req);
    const { extensions, signIn } = offer;
    // every paid prompt: the idempotency key a client may send (issue 27); small, so it stays
    // when a large prompt's header sheds its bigger entries (./requirements.ts)
    return new Prompt(
      url,
      offer.options.map((o) => this.issuer.requirement(o.chain, o.payTo, o.amount, offer.bind)),
      offer.description,
      () => ({
        ...loaded().paymentIdentifierDeclaration(signIn !== undefined),
        ...(typeof extensions === 'function' ? extensions() : extensions),
        ...(signIn &&
          loaded().siwxChallenge(
            this.opts.secret,
            { route: this.resourceKey(req), uri: url },
            this.opts.networks,
            this.nowMs(),
            false,
          )),
      }),
      this.service(offer.tags),
    );
  }

  /**
   * Sign-in-with-x on a paid route (`offer.signIn`): the signer of a valid SIGN-IN-WITH-X header
   * whom `offer.signIn` accepts, served without paying. Undefined when the request carries no such
   * header, or carries PAYMENT-SIGNATURE (payment wins). The proof's nonce is claimed (a replay is
   * refused with the prompt); a valid signer not accepted gets the plain 402 prompt, an invalid
   * proof the prompt with the reason, as on identity routes.
   */
  async signIn(req: GuardRequest, offer: PaidOffer): Promise<string | undefined> {
    await loadExtensions();
    const header = headerOf(req, loaded().SIWX_HEADER);
    if (!offer.signIn || !header || paymentSignatureOf(req)) return undefined;
    const prompt = this.paidPrompt(req, offer);
    const proof = await loaded().checkSiwx(
      header,
      { route: this.resourceKey(req), uri: prompt.resourceUrl },
      {
        secret: this.opts.secret,
        networks: this.opts.networks,
        nowMs: this.nowMs(),
        skewSeconds: this.opts.config.X402_CLOCK_SKEW_SECONDS,
      },
    );
    if ('refused' in proof) throw fail(proof.refused, prompt.header);
    const fresh = await this.opts.nonces.claimIdentityNonce({
      payer: proof.payer,
      nonce: proof.nonce,
      resource: offer.resource ?? this.resourceKey(req),
      validBefore: proof.expiresAt,
    });
    if (!fresh) throw fail('invalid_siwx_nonce_already_used', prompt.header);
    if (!(await offer.signIn(proof.payer))) {
      await offer.beforePrompt?.();
      throw prompt.error();
    }
    return proof.payer;
  }

  /**
   * The sign-in-with-x challenge of this route alone (`extensions` as a prompt carries it), for an
   * answer that is no payment prompt: a listing no longer for sale, whose buyers sign in to
   * receive their order again.
   */
  async signInChallenge(req: GuardRequest): Promise<Record<string, unknown>> {
    await loadExtensions();
    const url = this.resourceUrl(req);
    return loaded().siwxChallenge(
      this.opts.secret,
      { route: this.resourceKey(req), uri: url },
      this.opts.networks,
      this.nowMs(),
      false,
    );
  }

  async paid(req: GuardRequest, offer: PaidOffer): Promise<VerifiedPayment> {
    await loadExtensions();
    if (offer.options.length === 0) throw new Error('paid offer without options');
    const prompt = this.paidPrompt(req, offer);
    const signature = paymentSignatureOf(req);
    if (!signature) {
      await offer.beforePrompt?.();
      throw unsigned(req, prompt);
    }
    await offer.beforeVerify?.();
    let checked;
    try {
      checked = await this.check(signature, prompt, 5);
    } catch (err) {
      // used already: on this very route that is the retry of a request whose terms changed since
      // (price, chain, recipient), answered from its claim; elsewhere, another request (409)
      if (err instanceof AppError && err.code === 'authorization_already_used') {
        const resumed = await this.claimed(req, offer.resource);
        if (resumed) return resumed;
      }
      throw err;
    }
    const { requirement, payload, auth, chain, paymentIdentifier } = checked;
    if (offer.completionChain !== undefined && chain !== offer.completionChain) {
      const payer = auth.from.toLowerCase();
      if (await this.opts.nonces.claimOf(payer, auth.nonce)) throw authorizationAlreadyUsed();
      throw fail('chain_mismatch', prompt.header);
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
      amount: microOfAtomic(requirement.amount),
      ...(paymentIdentifier !== undefined && { paymentIdentifier }),
    };
  }

  /**
   * The request's signed payment when its authorization holds a paid claim on THIS route (key
   * `resource`, default `METHOD /path`): a retry of a request this server accepted, whatever it
   * offers now (the seller changed price or chains, the fee or its recipient changed, the listing
   * is gone). The claim proves its requirement was issued here, so the payment is taken from the
   * payload's own `accepted` requirement once the signature verifies and the authorization pays
   * exactly it; it comes back `resumed`: the processor answers it from that claim only (the same
   * request's order or verdict), never claiming or settling anew. Undefined otherwise.
   */
  async claimed(req: GuardRequest, resource?: string): Promise<VerifiedPayment | undefined> {
    await loadExtensions();
    const signature = paymentSignatureOf(req);
    if (!signature) return undefined;
    let payload: PaymentPayload | undefined;
    try {
      payload = parsePaymentPayloadV2(decodePaymentSignatureHeader(signature)) ?? undefined;
    } catch {
      return undefined;
    }
    if (!payload || payload.accepted.scheme !== 'exact') return undefined;
    const requirement = payload.accepted;
    const net = networkByCaip2(this.opts.networks, requirement.network);
    const exact = parseExactEvmPayload(payload.payload);
    if (!net || !exact) return undefined;
    const auth = exact.authorization;
    const reason = checkAuthorization(auth, requirement, {
      nowSeconds: this.nowSeconds(),
      skewSeconds: this.opts.config.X402_CLOCK_SKEW_SECONDS,
    });
    if (reason?.endsWith('_mismatch')) return undefined;
    const payer = auth.from.toLowerCase();
    const claim = await this.opts.nonces.claimOf(payer, auth.nonce);
    const key = resource ?? this.resourceKey(req);
    if (claim?.kind !== 'paid' || claim.resource !== key) return undefined;
    if (!(await verifyAuthorizationSignature(net, exact).catch(() => false))) return undefined;
    const paymentIdentifier = loaded().paymentIdentifierOf(payload);
    return {
      payer,
      chain: net.chain,
      requirement,
      payload: verifiedPayload(payload, requirement, exact),
      authorization: auth,
      nonce: auth.nonce,
      validBefore: new Date(Number(auth.validBefore) * 1000),
      resource: key,
      amount: microOfAtomic(requirement.amount),
      ...(paymentIdentifier !== undefined && { paymentIdentifier }),
      resumed: true,
    };
  }
}

/**
 * The payment as it is settled and recorded: the client's payload answering `requirement`, its
 * signature normalised (the verified one, `exact`) and its authorization as sent.
 */
function verifiedPayload(
  payload: PaymentPayload,
  requirement: PaymentRequirements,
  exact: ExactEvmPayload,
): PaymentPayload {
  return {
    x402Version: X402_VERSION,
    ...(payload.resource && { resource: payload.resource }),
    accepted: requirement,
    payload: verifiedExactPayload(exact, payload.payload.authorization),
    ...(payload.extensions && { extensions: payload.extensions }),
  };
}
