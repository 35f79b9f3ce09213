import {
  createPublicClient,
  encodeFunctionData,
  http,
  keccak256,
  serializeErc6492Signature,
  toHex,
  type Address,
  type Hex,
  type LocalAccount,
} from 'viem';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SmartAccountFactory } from '../../src/chain/artifacts.js';
import {
  deploySmartAccount,
  predictSmartAccount,
  startChainTestApp,
  type ChainTestContext,
} from '../helpers/chain.js';
import { uniqueUsername } from '../helpers/revision-a.js';
import { newWallet } from '../helpers/wallets.js';

/**
 * Revision A identity for smart-contract accounts on a real chain (spec 5.2): a deployed ERC-1271
 * account and a not-yet-deployed one (ERC-6492) register with a SIWE message signed by their
 * owner, checked over the chain's RPC without a flag from the caller; a forged signature is not.
 */
let t: ChainTestContext;
beforeAll(async () => {
  t = await startChainTestApp({ CONTRACT_REVISION: 'A' });
});
afterAll(() => t?.close());

const json = { 'content-type': 'application/json' };
const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${t.base}${path}`, {
    method: 'POST',
    headers: { ...json, ...headers },
    body: JSON.stringify(body),
  });

/** Registers `account` with a register challenge signed by `signer` (optionally wrapped). */
async function register(
  account: Address,
  signer: LocalAccount,
  wrap: (signature: Hex) => Hex = (s) => s,
) {
  const challenge = await post('/api/v1/auth/challenge', {
    address: account,
    chain: 'base',
    action: 'register',
  });
  expect(challenge.status).toBe(200);
  const { message } = (await challenge.json()) as { message: string };
  const signature = wrap(await signer.signMessage({ message }));
  return post('/api/v1/register', {
    username: uniqueUsername('sa'),
    country: 'DE',
    terms_agreed: true,
    wallets: [{ chain: 'base', address: account, message, signature }],
  });
}

it('a deployed ERC-1271 account registers with its owner signature; its key works; a forgery is refused', async () => {
  const owner = newWallet();
  const account = await deploySmartAccount(t.chain, owner.address, keccak256(toHex('reva-1271')));

  const forged = await register(account, newWallet());
  expect(forged.status).toBe(400);
  expect(await forged.json()).toMatchObject({ error: 'invalid_signature' });

  const res = await register(account, owner);
  expect(res.status, await res.clone().text()).toBe(201);
  const { api_key } = (await res.json()) as { api_key: string; agent_id: string };
  const items = await fetch(`${t.base}/api/v1/seller/items`, { headers: { 'x-api-key': api_key } });
  expect(items.status).toBe(200);

  // The account is now bound: registering it again is refused.
  const again = await register(account, owner);
  expect(again.status).toBe(409);
  expect(await again.json()).toMatchObject({ error: 'wallet_already_registered' });
});

it('an account not deployed yet registers with an ERC-6492 signature naming its factory call', async () => {
  const owner = newWallet();
  const salt = keccak256(toHex('reva-6492'));
  const account = await predictSmartAccount(t.chain, owner.address, salt);
  const pub = createPublicClient({ transport: http(t.chain.rpcUrls.base) });
  expect(await pub.getCode({ address: account })).toBeUndefined();
  const wrap = (signature: Hex) =>
    serializeErc6492Signature({
      address: t.chain.accountFactory,
      data: encodeFunctionData({
        abi: SmartAccountFactory.abi,
        functionName: 'createAccount',
        args: [owner.address, salt],
      }),
      signature,
    });

  const forged = await register(account, newWallet(), wrap);
  expect(forged.status).toBe(400);

  const res = await register(account, owner, wrap);
  expect(res.status, await res.clone().text()).toBe(201);
  expect((await res.json()) as object).toHaveProperty('api_key');
});
