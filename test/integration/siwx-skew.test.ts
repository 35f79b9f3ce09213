import {
  createSIWxPayload,
  encodeSIWxHeader,
  type CompleteSIWxInfo,
  type SIWxExtensionInfo,
} from '@x402/extensions/sign-in-with-x';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startListeningTestApp, type ListeningTestContext } from '../helpers/app.js';
import { createSaleItem } from '../helpers/items.js';
import { newWallet } from '../helpers/wallets.js';

/**
 * Sign-in-with-x across replicas whose clocks differ: the official client signs the challenge's
 * own `issuedAt` and `expirationTime` (the issuing replica's clock), and the proof may land on
 * another replica. Within X402_CLOCK_SKEW_SECONDS (30) it is accepted, as the zero-value proof's
 * validity window is; past it, refused.
 */
let t: ListeningTestContext;
beforeAll(async () => {
  t = await startListeningTestApp();
});
afterAll(() => t?.close());

interface Challenge {
  info: Omit<SIWxExtensionInfo, 'chainId' | 'type'>;
  supportedChains: Array<{ chainId: string; type: string }>;
}

/** The challenge of `url`'s 402, as a replica whose clock is `shiftMs` off would have issued it. */
async function proof(
  wallet: ReturnType<typeof newWallet>,
  url: string,
  shift: { issuedMs: number; expiresMs?: number },
) {
  const res = await fetch(url);
  expect(res.status).toBe(402);
  const ext = ((await res.json()) as { extensions: Record<string, Challenge> }).extensions[
    'sign-in-with-x'
  ]!;
  const at = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();
  const info = {
    ...ext.info,
    issuedAt: at(ext.info.issuedAt, shift.issuedMs),
    expirationTime: at(ext.info.expirationTime!, shift.expiresMs ?? shift.issuedMs),
    chainId: ext.supportedChains[0]!.chainId,
    type: 'eip191',
  } as CompleteSIWxInfo;
  return encodeSIWxHeader(await createSIWxPayload(info, wallet, url));
}

describe('SIGN-IN-WITH-X between replicas with skewed clocks', () => {
  it('a challenge issued by a replica 5 s ahead is accepted here; 2 minutes ahead is refused', async () => {
    const wallet = newWallet();
    await createSaleItem(t.runtime.deps, { sellerAddress: wallet.address.toLowerCase() });
    const url = `${t.base}/api/v1/agent/username`;
    const ahead = await fetch(url, {
      headers: { 'SIGN-IN-WITH-X': await proof(wallet, url, { issuedMs: 5_000 }) },
    });
    expect(ahead.status).toBe(200);

    const far = await fetch(url, {
      headers: { 'SIGN-IN-WITH-X': await proof(wallet, url, { issuedMs: 120_000 }) },
    });
    expect(far.status).toBe(402);
    expect(await far.json()).toMatchObject({ reason: 'invalid_siwx_issued_at_in_future' });
  });

  it('a challenge of a replica 10 s behind, used at its last second, is accepted; long expired is not', async () => {
    const wallet = newWallet();
    await createSaleItem(t.runtime.deps, { sellerAddress: wallet.address.toLowerCase() });
    const url = `${t.base}/api/v1/agent/wallets`;
    // issued 299 s ago by a clock 10 s behind ours: expired 9 s ago by our clock
    const late = await fetch(url, {
      headers: {
        'SIGN-IN-WITH-X': await proof(wallet, url, { issuedMs: -309_000, expiresMs: -9_000 }),
      },
    });
    expect(late.status).toBe(200);

    const expired = await fetch(url, {
      headers: {
        'SIGN-IN-WITH-X': await proof(wallet, url, { issuedMs: -400_000, expiresMs: -100_000 }),
      },
    });
    expect(expired.status).toBe(402);
    expect((await expired.json()) as { reason: string }).toMatchObject({
      reason: expect.stringMatching(/^invalid_siwx_(expired|issued_at_too_old)$/),
    });
  });
});
