import {
  createSIWxMessage,
  encodeSIWxHeader,
  wrapFetchWithSIWx,
  type SIWxExtensionInfo,
} from '@x402/extensions/sign-in-with-x';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startListeningTestApp, type ListeningTestContext } from '../helpers/app.js';
import { createSaleItem } from '../helpers/items.js';
import { newWallet } from '../helpers/wallets.js';

/**
 * Identity routes accept a SIGN-IN-WITH-X proof beside the zero-value x402 proof, as the official
 * client (@x402/extensions' wrapFetchWithSIWx, unmodified) sends it: once, for this route only.
 */
let t: ListeningTestContext;
beforeAll(async () => {
  t = await startListeningTestApp();
});
afterAll(() => t?.close());

/** fetch that records the SIGN-IN-WITH-X header it sends. */
function recording() {
  const sent: string[] = [];
  const f: typeof fetch = async (input, init) => {
    const h = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
    const v = h.get('sign-in-with-x');
    if (v) sent.push(v);
    return fetch(input, init);
  };
  return { f, sent };
}

describe('SIGN-IN-WITH-X on identity routes', () => {
  it('the 402 of an identity route advertises the sign-in-with-x challenge', async () => {
    const res = await fetch(`${t.base}/api/v1/inbox`);
    expect(res.status).toBe(402);
    const body = (await res.json()) as {
      extensions: Record<
        string,
        { info: Record<string, string>; supportedChains: Array<Record<string, string>> }
      >;
    };
    const ext = body.extensions['sign-in-with-x']!;
    expect(ext.info).toMatchObject({
      domain: new URL(t.base).host,
      uri: `${t.base}/api/v1/inbox`,
      version: '1',
      nonce: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    });
    expect(Date.parse(ext.info.expirationTime!) - Date.parse(ext.info.issuedAt!)).toBe(300_000);
    expect(ext.supportedChains).toEqual([
      { chainId: 'eip155:8453', type: 'eip191' },
      { chainId: 'eip155:137', type: 'eip191' },
    ]);
  });

  it('the official client signs in, once per proof, for that route only', async () => {
    const wallet = newWallet();
    await createSaleItem(t.runtime.deps, { sellerAddress: wallet.address.toLowerCase() });
    const { f, sent } = recording();
    const siwxFetch = wrapFetchWithSIWx(f, wallet);
    const res = await siwxFetch(`${t.base}/api/v1/agent/username`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ username: expect.any(String) });
    expect(sent).toHaveLength(1);

    // the same proof again: its nonce is spent
    const replay = await fetch(`${t.base}/api/v1/agent/username`, {
      headers: { 'SIGN-IN-WITH-X': sent[0]! },
    });
    expect(replay.status).toBe(402);
    expect(await replay.json()).toMatchObject({
      error: 'payment_verification_failed',
      reason: 'invalid_siwx_nonce_already_used',
    });

    // a fresh proof made for one route does not open another
    const other = recording();
    await wrapFetchWithSIWx(other.f, wallet)(`${t.base}/api/v1/agent/wallets`);
    const moved = await fetch(`${t.base}/api/v1/agent/username`, {
      headers: { 'SIGN-IN-WITH-X': other.sent[0]! },
    });
    expect(moved.status).toBe(402);
    expect(await moved.json()).toMatchObject({ reason: 'invalid_siwx_uri_mismatch' });
  });

  it('a wallet without an account is agent_not_found, as with the zero-value proof', async () => {
    const res = await wrapFetchWithSIWx(fetch, newWallet())(`${t.base}/api/v1/agent/username`);
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: 'agent_not_found' });
  });

  it('a forged header is refused before anything else', async () => {
    const res = await fetch(`${t.base}/api/v1/agent/username`, {
      headers: { 'SIGN-IN-WITH-X': Buffer.from('{"nope":1}').toString('base64') },
    });
    expect(res.status).toBe(402);
    expect(await res.json()).toMatchObject({ reason: 'invalid_siwx_payload' });
  });
});

/**
 * Which fields of the signed message must be the challenge's (s40): a proof signed by the right
 * wallet over a message that differs from what this server issued is refused with the field's
 * reason. domain, uri and statement must equal the challenge's (an EIP-4361 message of another
 * version cannot even be formatted); the chain must be one it
 * offers; the nonce one it issued for this route. The times are judged, not compared: issuedAt at
 * most 300 s old (+ skew), an expirationTime (if any) not passed.
 */
describe('SIGN-IN-WITH-X: the signed message must be the one issued', () => {
  const url = () => `${t.base}/api/v1/agent/username`;

  /** Signs this route's challenge with `change` applied first, and sends it. */
  async function signedWith(change: (info: Record<string, unknown>) => void) {
    const wallet = newWallet();
    await createSaleItem(t.runtime.deps, { sellerAddress: wallet.address.toLowerCase() });
    const prompt = (await (await fetch(url())).json()) as {
      extensions: Record<string, { info: SIWxExtensionInfo }>;
    };
    const info: Record<string, unknown> = {
      ...prompt.extensions['sign-in-with-x']!.info,
      chainId: 'eip155:8453',
      type: 'eip191',
    };
    change(info);
    // signed as createSIWxPayload signs, without its client-side check of the domain
    const complete = info as unknown as Parameters<typeof createSIWxMessage>[0];
    const message = createSIWxMessage(complete, wallet.address);
    const payload = {
      ...complete,
      address: wallet.address,
      signature: await wallet.signMessage({ message }),
    };
    return fetch(url(), { headers: { 'SIGN-IN-WITH-X': encodeSIWxHeader(payload) } });
  }

  it('the challenge as issued signs in', async () => {
    expect((await signedWith(() => {})).status).toBe(200);
  });

  it('a far expiry keeps the spent nonce only as long as the proof could be accepted', async () => {
    // found by the s47 sweep: the claim was kept until the client's own expirationTime (plus an
    // hour), so any wallet, with or without an account, could leave rows pruned in year 9999
    let nonce = '';
    const res = await signedWith((i) => {
      i.expirationTime = '9999-12-31T23:59:59.000Z';
      nonce = i.nonce as string;
    });
    expect(res.status).toBe(200);
    const [row] = await t.runtime.deps.sql<{ validBefore: Date }[]>`
      select valid_before from x402_nonces where nonce = ${nonce}`;
    // accepted at most 300 s + the skew after issuedAt; pruned an hour after that
    expect(row!.validBefore.getTime()).toBeLessThan(Date.now() + 2 * 3600_000);
  });

  it.each([
    [
      'another statement',
      (i: Record<string, unknown>) => (i.statement = 'Approve a transfer of 1000 USDC.'),
      'invalid_siwx_statement_mismatch',
    ],
    [
      'no statement',
      (i: Record<string, unknown>) => delete i.statement,
      'invalid_siwx_statement_mismatch',
    ],
    [
      'another domain',
      (i: Record<string, unknown>) => (i.domain = 'evil.example'),
      'invalid_siwx_domain_mismatch',
    ],
    [
      'a chain not offered',
      (i: Record<string, unknown>) => (i.chainId = 'eip155:1'),
      'invalid_siwx_unsupported_chain',
    ],
    [
      // found by the s47 sweep: accepted, checked as EIP-191 whatever the type said
      'a signature type not of the chain (ed25519 on eip155)',
      (i: Record<string, unknown>) => (i.type = 'ed25519'),
      'invalid_siwx_unsupported_chain',
    ],
    [
      'a nonce not issued here',
      (i: Record<string, unknown>) => (i.nonce = `0x${'ab'.repeat(32)}`),
      'invalid_siwx_nonce',
    ],
    [
      'an expiry already passed',
      (i: Record<string, unknown>) =>
        (i.expirationTime = new Date(Date.now() - 120_000).toISOString()),
      'invalid_siwx_expired',
    ],
  ])('%s is refused', async (_what, change, reason) => {
    const res = await signedWith(change);
    expect(res.status).toBe(402);
    expect(await res.json()).toMatchObject({ error: 'payment_verification_failed', reason });
  });
});

/**
 * A proof edited after signing so that its message cannot even be formatted as EIP-4361 (found by
 * the s47 sweep: @x402/extensions' verifySIWxSignature throws SiweParseError on these, and the
 * route answered 500). A client can send any JSON; it is a malformed proof: 402
 * invalid_siwx_payload with a fresh prompt, never a 500.
 */
describe('SIGN-IN-WITH-X: a payload no EIP-4361 message can be made of', () => {
  const url = () => `${t.base}/api/v1/agent/username`;

  it.each([
    ['an address that is not one', { address: 'bob' }],
    ['an address one digit short', { address: `0x${'a'.repeat(39)}` }],
    ['version 2', { version: '2' }],
    ['resources that are not URIs', { resources: ['not a uri'] }],
    ['a request id with a line break', { requestId: 'a\nb' }],
  ])('%s is 402 invalid_siwx_payload, not a 500', async (_what, edit) => {
    const wallet = newWallet();
    await createSaleItem(t.runtime.deps, { sellerAddress: wallet.address.toLowerCase() });
    const prompt = (await (await fetch(url())).json()) as {
      extensions: Record<string, { info: SIWxExtensionInfo }>;
    };
    const info = {
      ...prompt.extensions['sign-in-with-x']!.info,
      chainId: 'eip155:8453',
      type: 'eip191',
    } as unknown as Parameters<typeof createSIWxMessage>[0];
    const message = createSIWxMessage(info, wallet.address);
    const signed = {
      ...info,
      address: wallet.address,
      signature: await wallet.signMessage({ message }),
    };
    const res = await fetch(url(), {
      headers: { 'SIGN-IN-WITH-X': encodeSIWxHeader({ ...signed, ...edit }) },
    });
    expect(res.status).toBe(402);
    expect(await res.json()).toMatchObject({
      error: 'payment_verification_failed',
      reason: 'invalid_siwx_payload',
    });
    expect(res.headers.get('payment-required')).toBeTruthy();
  });
});
