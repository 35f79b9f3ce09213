/**
 * Sign-In-With-X (the x402 `sign-in-with-x` extension, CAIP-122 / EIP-4361) on identity routes,
 * beside the zero-value EIP-3009 proof (./guard.ts `identity`). @x402/extensions does the parsing,
 * the message checks and the signature check; this file binds them to the marketplace:
 * - the prompt's challenge names this origin (`domain`: host and port), the route's URL (`uri`),
 *   both supported chains, a five-minute expiry and a nonce this server derived (random half +
 *   HMAC of it, the route key `METHOD /path` and the URL with the server secret), so a nonce from
 *   elsewhere, for another route or for another method on the same URL (a proof signed from a
 *   GET prompt never authorises the PUT) never verifies, and nothing is stored until a proof
 *   arrives; the signed message names the URL only, as the extension defines it;
 * - a proof is accepted once: its nonce is claimed per signer in the same single-use table as the
 *   zero-value proofs (survives restarts, shared by replicas); its URI must be the route's, its
 *   domain this origin's, its statement the challenge's, its chain one offered;
 * - smart accounts (EIP-1271, ERC-6492) are checked over the chain's bounded RPC client, as the
 *   zero-value proofs are (./smart-accounts.ts); without RPC only EOAs verify.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import {
  buildSIWxSchema,
  createSIWxMessage,
  parseSIWxHeader,
  SIGN_IN_WITH_X,
  validateSIWxMessage,
  verifySIWxSignature,
  type SIWxPayload,
} from '@x402/extensions/sign-in-with-x';
import { recoverMessageAddress, type Hex } from 'viem';
import { networkByCaip2, type PaymentNetworks } from './networks.js';

export const SIWX_HEADER = 'sign-in-with-x';
/** How long a challenge may be signed and used. */
export const SIWX_TTL_SECONDS = 300;

/** The statement every challenge carries; a proof must sign exactly this text. */
export const SIWX_STATEMENT = 'Sign in to the code artifact marketplace with this wallet.';

/** Where a proof is used: the route key (`METHOD /path`) and the absolute URL it names. */
export interface SiwxTarget {
  route: string;
  uri: string;
}

const mac = (secret: Buffer, random: string, { route, uri }: SiwxTarget) =>
  createHmac('sha256', secret)
    .update(`x402-siwx:v2:${random}:${route}:${uri}`)
    .digest('hex')
    .slice(0, 32);

/** A nonce only this server issues for `target`: `0x` + 32 random hex + 32 hex of their HMAC. */
export function siwxNonce(secret: Buffer, target: SiwxTarget): string {
  const random = randomBytes(16).toString('hex');
  return `0x${random}${mac(secret, random, target)}`;
}

function issuedHere(secret: Buffer, target: SiwxTarget, nonce: string): boolean {
  const m = /^0x([0-9a-f]{32})([0-9a-f]{32})$/.exec(nonce);
  if (!m) return false;
  return timingSafeEqual(Buffer.from(m[2]!), Buffer.from(mac(secret, m[1]!, target)));
}

/**
 * `extensions["sign-in-with-x"]` of a prompt for `target`. `withSchema: false` (the acquire prompt,
 * whose header must also carry the bazaar entry within 8 KB) leaves out the JSON schema of the
 * proof, which clients do not read to sign.
 */
export function siwxChallenge(
  secret: Buffer,
  target: SiwxTarget,
  networks: PaymentNetworks,
  nowMs: number,
  withSchema = true,
): Record<string, unknown> {
  const { uri } = target;
  return {
    [SIGN_IN_WITH_X]: {
      info: {
        domain: new URL(uri).host,
        uri,
        statement: SIWX_STATEMENT,
        version: '1',
        nonce: siwxNonce(secret, target),
        issuedAt: new Date(nowMs).toISOString(),
        expirationTime: new Date(nowMs + SIWX_TTL_SECONDS * 1000).toISOString(),
        resources: [uri],
      },
      supportedChains: Object.values(networks).map((n) => ({
        chainId: n.network,
        type: 'eip191',
      })),
      ...(withSchema && { schema: buildSIWxSchema() }),
    },
  };
}

/** A checked proof: the signer (lower-case) and when its nonce stops mattering. */
export interface SiwxProof {
  payer: string;
  nonce: string;
  expiresAt: number;
}

/**
 * The message as `validateSIWxMessage` (which reads `Date.now()` and allows no skew) should judge
 * it with `skewSeconds` of tolerance, as the zero-value proof's window has: the official client
 * signs the challenge's own `issuedAt` and `expirationTime`, written by whichever replica answered
 * the 402, so a proof that lands on a replica a second behind would otherwise be "issued in the
 * future". Only the copy that is validated is shifted; the signature is checked on the original.
 */
function withinSkew(payload: SIWxPayload, skewSeconds: number): SIWxPayload {
  const skew = skewSeconds * 1000;
  const now = Date.now();
  const shift = (iso: string | undefined, ms: number) => {
    const t = iso === undefined ? NaN : Date.parse(iso);
    return Number.isFinite(t) ? new Date(t + ms).toISOString() : iso;
  };
  const issued = Date.parse(payload.issuedAt);
  return {
    ...payload,
    ...(issued > now && issued <= now + skew && { issuedAt: new Date(now).toISOString() }),
    ...(payload.expirationTime !== undefined && {
      expirationTime: shift(payload.expirationTime, skew),
    }),
    ...(payload.notBefore !== undefined && { notBefore: shift(payload.notBefore, -skew) }),
  };
}

/**
 * The signer of a SIGN-IN-WITH-X header for `target` (its nonce issued for that very route key
 * and URL), or the reason it is refused (an `invalid_siwx_*` code). The nonce is not claimed
 * here: the caller claims it.
 */
export async function checkSiwx(
  header: string,
  target: SiwxTarget,
  opts: { secret: Buffer; networks: PaymentNetworks; nowMs: number; skewSeconds: number },
): Promise<SiwxProof | { refused: string }> {
  const { uri } = target;
  let payload: SIWxPayload;
  try {
    payload = parseSIWxHeader(header);
  } catch {
    return { refused: 'invalid_siwx_payload' };
  }
  if (payload.uri !== uri) return { refused: 'invalid_siwx_uri_mismatch' };
  if (!issuedHere(opts.secret, target, payload.nonce)) return { refused: 'invalid_siwx_nonce' };
  // The wallet must have signed the words we showed it (a statement from elsewhere, or none, is a
  // signature obtained for something else). The version needs no check: an EIP-4361 message of
  // any other version cannot be formatted, so its signature never verifies. The times are judged
  // below (issuedAt's age, expiry), not compared: the nonce and its single use bind the proof.
  if (payload.statement !== SIWX_STATEMENT) return { refused: 'invalid_siwx_statement_mismatch' };
  const net = networkByCaip2(opts.networks, payload.chainId);
  if (!net) return { refused: 'invalid_siwx_unsupported_chain' };
  // supportedChains names each chain with its signature type (eip191 on every eip155 chain here):
  // another type on that chain is a pair the challenge does not offer. @x402/extensions picks the
  // verifier from the chain's namespace alone, so `ed25519` on eip155 would be checked as EIP-191.
  if (payload.type !== 'eip191') return { refused: 'invalid_siwx_unsupported_chain' };
  const valid = await validateSIWxMessage(withinSkew(payload, opts.skewSeconds), new URL(uri), {
    maxAge: (SIWX_TTL_SECONDS + opts.skewSeconds) * 1000,
  });
  if (!valid.isValid) return { refused: valid.invalidReason };
  // verifySIWxSignature formats the EIP-4361 message first and throws (SiweParseError) when the
  // payload cannot make one (an address that is not one, version 2, resources that are not URIs, a
  // line break in the request id): such a proof is malformed, refused as one, never a 500. The
  // message is formatted here by the same function, so only that failure is caught.
  try {
    createSIWxMessage(payload, payload.address);
  } catch {
    return { refused: 'invalid_siwx_payload' };
  }
  // A verifier given to @x402/extensions replaces its EOA recovery: a key holder's signature is
  // recovered here first, as the zero-value proofs' is (./eip3009.ts), so an EOA signs in with no
  // RPC call, and through an RPC outage; only a signature that does not recover to the address
  // goes to the bounded smart-account check.
  const signatures = net.signatures;
  const verified = await verifySIWxSignature(payload, {
    ...(signatures && {
      evmVerifier: async ({ address, message, signature }) => {
        if (await recoversTo(address, message, signature)) {
          signatures.rememberEoa(address);
          return true;
        }
        return signatures.accepts(address, signature as Hex, (client) =>
          client.verifyMessage({ address, message, signature: signature as Hex }),
        );
      },
    }),
  });
  if (!verified.isValid) return { refused: verified.invalidReason };
  // The spent nonce is kept (and pruned an hour after) until the proof can no longer be accepted:
  // its issuedAt ages past the TTL and the skew (judged above) at the latest, or its own expiry
  // if sooner. The expiry alone is the client's word: 9999-12-31 left rows no pruning removed.
  const acceptedUntil = Date.parse(payload.issuedAt) + (SIWX_TTL_SECONDS + opts.skewSeconds) * 1000;
  const expires = payload.expirationTime ? Date.parse(payload.expirationTime) : NaN;
  const until = Math.min(
    Number.isFinite(acceptedUntil) ? acceptedUntil : opts.nowMs,
    Number.isFinite(expires) ? expires : Infinity,
  );
  return {
    payer: verified.payer.toLowerCase(),
    nonce: payload.nonce,
    expiresAt: Math.floor(until / 1000) + 3600,
  };
}

/** True when `signature` is an ECDSA signature of `message` by the key of `address`. */
async function recoversTo(address: string, message: string, signature: string): Promise<boolean> {
  if (!/^0x[0-9a-fA-F]{130}$/.test(signature)) return false;
  try {
    const signer = await recoverMessageAddress({ message, signature: signature as Hex });
    return signer.toLowerCase() === address.toLowerCase();
  } catch {
    return false;
  }
}
