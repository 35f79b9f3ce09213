import { randomBytes } from 'node:crypto';
import { encodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from '@x402/core/types';
import { authorizationTypes } from '@x402/evm';
import { getAddress, type Hex, type LocalAccount } from 'viem';
import { expect } from 'vitest';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { MarketplaceClient } from '../../src/client/index.js';
import type { App } from '../../src/http/app.js';
import type { AppError } from '../../src/errors.js';
import type { PaidOffer, VerifiedPayment, X402Guard } from '../../src/x402/guard.js';
import { recoverAuthorizationSigner, type Eip712Domain } from '../../src/x402/recovery.js';

/** A Base USDC `exact` requirement as our prompts carry it (for tests of the x402 codecs). */
export const exampleRequirement: PaymentRequirements = {
  scheme: 'exact',
  network: 'eip155:8453',
  asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  amount: '100000',
  payTo: '0x05411AB1dCe067deE244e5ef9A9164332420c9A9',
  maxTimeoutSeconds: 300,
  extra: { name: 'USD Coin', version: '2', item_id: 'x' },
};

/** A fresh EOA with a real secp256k1 key. */
export function newWallet(): LocalAccount {
  return privateKeyToAccount(generatePrivateKey());
}

/** `fetch` over `app.inject`: the real client code against the real app, without a socket. */
export function injectFetch(app: App): typeof globalThis.fetch {
  return async (input, init) => {
    const req = new Request(input, init);
    const body = req.body ? Buffer.from(await req.arrayBuffer()) : undefined;
    const url = new URL(req.url);
    const res = await app.inject({
      method: req.method as 'GET',
      url: url.pathname + url.search,
      headers: Object.fromEntries(req.headers.entries()),
      ...(body && { payload: body }),
    });
    const headers = new Headers();
    for (const [k, v] of Object.entries(res.headers)) {
      if (v === undefined) continue;
      for (const one of Array.isArray(v) ? v : [String(v)]) headers.append(k, one);
    }
    return new Response(req.method === 'HEAD' || res.statusCode === 204 ? null : res.rawPayload, {
      status: res.statusCode,
      headers,
    });
  };
}

export function clientFor(
  app: App,
  account: LocalAccount,
  baseUrl = 'http://marketplace.test',
): MarketplaceClient {
  return new MarketplaceClient({ baseUrl, account, fetch: injectFetch(app) });
}

/** Decodes the PAYMENT-REQUIRED header of a 402 inject response. */
export function promptOf(res: { headers: Record<string, unknown> }): PaymentRequired {
  const h = res.headers['payment-required'];
  if (typeof h !== 'string') throw new Error('no PAYMENT-REQUIRED header');
  return JSON.parse(Buffer.from(h, 'base64').toString('utf8')) as PaymentRequired;
}

export interface ForgeOptions {
  /** Fields of the signed authorization to replace. */
  authorization?: Partial<{
    from: string;
    to: string;
    value: string;
    validAfter: string;
    validBefore: string;
    nonce: Hex;
  }>;
  /** The requirement the payload claims to have accepted (defaults to `requirement`). */
  accepted?: PaymentRequirements;
  /** Sign over a different chain id or token than the requirement names. */
  domain?: Partial<{ chainId: number; verifyingContract: string; name: string; version: string }>;
  signer?: LocalAccount;
  /** Strip the 0x prefix of the signature (some client libraries do). */
  bareSignature?: boolean;
  /** A `payment-identifier` id carried beside the payment (x402 extension; our client's default). */
  paymentId?: string;
}

/**
 * Signs a real EIP-3009 authorization for `requirement` like a client would, with the chosen
 * fields replaced: how tests build wrong amounts, recipients, networks and windows.
 */
export async function signPayment(
  account: LocalAccount,
  required: PaymentRequired,
  requirement: PaymentRequirements,
  opts: ForgeOptions = {},
): Promise<{ header: string; payload: PaymentPayload; nonce: Hex }> {
  const now = Math.floor(Date.now() / 1000);
  const auth = {
    from: account.address,
    to: getAddress(requirement.payTo),
    value: requirement.amount,
    validAfter: '0',
    validBefore: String(now + requirement.maxTimeoutSeconds),
    nonce: `0x${randomBytes(32).toString('hex')}` as Hex,
    ...opts.authorization,
  };
  const signer = opts.signer ?? account;
  const signature = await signer.signTypedData({
    domain: {
      name: String(requirement.extra.name),
      version: String(requirement.extra.version),
      chainId: Number(requirement.network.split(':')[1]),
      verifyingContract: getAddress(requirement.asset),
      ...(opts.domain as object),
    } as { name: string; version: string; chainId: number; verifyingContract: Hex },
    types: authorizationTypes,
    primaryType: 'TransferWithAuthorization',
    message: {
      from: getAddress(auth.from),
      to: getAddress(auth.to),
      value: BigInt(auth.value),
      validAfter: BigInt(auth.validAfter),
      validBefore: BigInt(auth.validBefore),
      nonce: auth.nonce,
    },
  });
  const payload: PaymentPayload = {
    x402Version: 2,
    resource: required.resource,
    accepted: opts.accepted ?? requirement,
    payload: {
      signature: opts.bareSignature ? signature.slice(2) : signature,
      authorization: auth,
    },
    ...(opts.paymentId && {
      extensions: { 'payment-identifier': { info: { required: false, id: opts.paymentId } } },
    }),
  };
  return { header: encodePaymentSignatureHeader(payload), payload, nonce: auth.nonce };
}

/**
 * What anyone who watched the chain can send once a payment's transfer is broadcast: the same
 * authorization and signature (the calldata of `transferWithAuthorization`) with the requirement
 * of the public prompt, and nothing the chain never saw (no `payment-identifier` id).
 */
export function chainObserverCopy(payload: PaymentPayload): string {
  const { extensions: _private, ...seen } = payload;
  return encodePaymentSignatureHeader(seen);
}

/**
 * The lower-case address that signed a proof `{ signature, authorization }` as a client sends it
 * (the authorization's numbers as strings) for the token `domain`; null when none did.
 */
export function signerOfProof(
  domain: Eip712Domain,
  proof: { signature: string; authorization: Record<string, string> },
): string | null {
  const a = proof.authorization;
  return recoverAuthorizationSigner(
    domain,
    {
      from: a.from!,
      to: a.to!,
      value: BigInt(a.value!),
      validAfter: BigInt(a.validAfter!),
      validBefore: BigInt(a.validBefore!),
      nonce: a.nonce!,
    },
    proof.signature,
  );
}

/**
 * `n` payment headers for `requirement`, signed in turn by `wallets` (round robin): what the
 * benches send, signed before their clocks start.
 */
export async function signHeaders(
  wallets: LocalAccount[],
  required: PaymentRequired,
  requirement: PaymentRequirements,
  n: number,
): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < n; i++)
    out.push((await signPayment(wallets[i % wallets.length]!, required, requirement)).header);
  return out;
}

/**
 * What a spent authorization that proves no buyer is answered (docs/payments-edges.md): 402
 * `invalid_exact_evm_nonce_already_used` naming the order it paid for, and no link minted.
 */
export function expectOrderNamedWithoutLink(
  res: { statusCode: number; body: string; json: () => unknown },
  orderId: string,
): void {
  expect(res.statusCode, res.body).toBe(402);
  expect(res.json()).toMatchObject({
    error: 'payment_verification_failed',
    reason: 'invalid_exact_evm_nonce_already_used',
    order_id: orderId,
  });
  expect(res.body).not.toMatch(/download|sig=/);
}

/**
 * A payment as the guard verifies it, for tests that drive the payment processor below the routes:
 * the 402 prompt `offer` gives a request to `url` is read, a fresh wallet signs its first option,
 * and the request is sent again with the signature (kept in `req`, for a retry of the same one).
 */
export async function guardedPayment(
  guard: X402Guard,
  url: string,
  offer: PaidOffer,
): Promise<{
  req: { method: string; url: string; headers: Record<string, string> };
  payment: VerifiedPayment;
  nonce: Hex;
}> {
  const req = { method: 'POST', url, headers: {} as Record<string, string> };
  const prompt = await guard.paid(req, offer).then(
    () => undefined,
    (e: unknown) => (e as AppError).extras.headers!['PAYMENT-REQUIRED']!,
  );
  expect(prompt, 'the guard answers an unsigned request with its 402 prompt').toBeDefined();
  const required = JSON.parse(Buffer.from(prompt!, 'base64').toString('utf8')) as PaymentRequired;
  const signed = await signPayment(newWallet(), required, required.accepts[0]!);
  req.headers['payment-signature'] = signed.header;
  return { req, payment: await guard.paid(req, offer), nonce: signed.nonce };
}
