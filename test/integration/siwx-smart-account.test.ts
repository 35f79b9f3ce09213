import {
  createSIWxMessage,
  encodeSIWxHeader,
  type CompleteSIWxInfo,
} from '@x402/extensions/sign-in-with-x';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startListeningTestApp, type ListeningTestContext } from '../helpers/app.js';
import { startFakeRpc, type FakeRpc } from '../helpers/fake-rpc.js';
import { createSaleItem } from '../helpers/items.js';
import { newWallet } from '../helpers/wallets.js';

/**
 * Sign-in-with-x by a smart account (EIP-1271, checked over the chain's RPC, a loopback node
 * speaking JSON-RPC): its owner's signature opens the account's own routes, a stranger's does
 * not, and a chain without RPC never accepts it.
 */
let t: ListeningTestContext;
let rpc: FakeRpc;
beforeAll(async () => {
  rpc = await startFakeRpc();
  t = await startListeningTestApp({ RPC_URL_BASE: rpc.url });
});
afterAll(async () => {
  await t?.close();
  await rpc?.close();
});

interface Challenge {
  info: Omit<CompleteSIWxInfo, 'chainId' | 'type'>;
}

/** A SIGN-IN-WITH-X header in the name of `address`, signed by `signer`, for `chainId`. */
async function proof(
  url: string,
  address: string,
  signer: ReturnType<typeof newWallet>,
  chainId: string,
) {
  const res = await fetch(url);
  const ext = ((await res.json()) as { extensions: Record<string, Challenge> }).extensions[
    'sign-in-with-x'
  ]!;
  const info = { ...ext.info, chainId, type: 'eip191' } as CompleteSIWxInfo;
  const message = createSIWxMessage(info, address);
  const signature = await signer.signMessage({ message });
  return encodeSIWxHeader({ ...info, address, signature });
}

describe('SIGN-IN-WITH-X by a smart account', () => {
  it("the owner's signature opens the account's routes; a stranger's or one without RPC does not", async () => {
    const owner = newWallet();
    const account = `0x${'6b'.repeat(20)}`;
    rpc.accounts.set(account, owner.address);
    await createSaleItem(t.runtime.deps, { sellerAddress: account });
    const url = `${t.base}/api/v1/agent/wallets`;
    const send = async (header: string) => fetch(url, { headers: { 'SIGN-IN-WITH-X': header } });

    const ok = await send(await proof(url, account, owner, 'eip155:8453'));
    expect(ok.status).toBe(200);
    const { wallets } = (await ok.json()) as { wallets: Array<{ address: string }> };
    expect(wallets.map((w) => w.address.toLowerCase())).toEqual([account]);

    const stranger = await send(await proof(url, account, newWallet(), 'eip155:8453'));
    expect(stranger.status).toBe(402);
    expect(await stranger.json()).toMatchObject({ error: 'payment_verification_failed' });

    // polygon has no RPC here: only EOAs verify on it
    const noRpc = await send(await proof(url, account, owner, 'eip155:137'));
    expect(noRpc.status).toBe(402);
  });

  it('an EOA signs in on a chain that has RPC by recovery alone, with no RPC call', async () => {
    const wallet = newWallet();
    await createSaleItem(t.runtime.deps, { sellerAddress: wallet.address.toLowerCase() });
    const url = `${t.base}/api/v1/agent/username`;
    const asked = rpc.received;
    const res = await fetch(url, {
      headers: { 'SIGN-IN-WITH-X': await proof(url, wallet.address, wallet, 'eip155:8453') },
    });
    expect(res.status).toBe(200);
    expect(rpc.received).toBe(asked);
    // the chain's answer is not needed for a key holder: signing in works through an outage
    const down = await startListeningTestApp({ RPC_URL_BASE: 'http://127.0.0.1:9' });
    try {
      const downUrl = `${down.base}/api/v1/agent/username`;
      await createSaleItem(down.runtime.deps, { sellerAddress: wallet.address.toLowerCase() });
      const again = await fetch(downUrl, {
        headers: { 'SIGN-IN-WITH-X': await proof(downUrl, wallet.address, wallet, 'eip155:8453') },
      });
      expect(again.status).toBe(200);
    } finally {
      await down.close();
    }
  });
});
