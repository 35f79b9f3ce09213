import {
  createPublicClient,
  createWalletClient,
  encodeFunctionData,
  getAddress,
  http,
  keccak256,
  serializeErc6492Signature,
  toHex,
  type Address,
  type Hex,
  type LocalAccount,
} from 'viem';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PayoutSplitter, SmartAccountFactory } from '../../src/chain/artifacts.js';
import { viemChain } from '../../src/chain/clients.js';
import { payoutAddressing } from '../../src/chain/payout-address.js';
import {
  deploySmartAccount,
  predictSmartAccount,
  signedAcquire,
  startChainTestApp,
  type ChainTestContext,
} from '../helpers/chain.js';
import { createSaleItem } from '../helpers/items.js';
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

it('withdrawal (spec 2.7, Revision A): the seller wallet calls withdraw(token) on its payout contract and receives its share; nobody else can', async () => {
  const seller = newWallet();
  const registered = await register(seller.address, seller);
  expect(registered.status).toBe(201);
  const { api_key } = (await registered.json()) as { api_key: string };
  const { sql, chainPayouts, saleItems } = t.runtime.deps;
  const item = await createSaleItem(t.runtime.deps, {
    sellerAddress: seller.address,
    priceUsdc: 0.5,
    payouts: payoutAddressing(t.config),
  });
  await chainPayouts!.deployMissing(sql, { onDeployed: (id) => saleItems.invalidateSeller(id) });
  const buyer = newWallet();
  await t.chain.fundUsdc('base', buyer.address, 1_000_000n);
  const bought = await (await signedAcquire(t.base, buyer, item.itemId, 'base')).send();
  expect(bought.status, await bought.clone().text()).toBe(200);

  const readBase = async () => {
    const res = await fetch(`${t.base}/api/v1/seller/payouts`, {
      headers: { 'x-api-key': api_key },
    });
    expect(res.status).toBe(200);
    const { payouts } = (await res.json()) as { payouts: Array<Record<string, string>> };
    return payouts.find((p) => p.chain === 'base')!;
  };
  const before = await readBase();
  // 500,000 raw paid in; 499,999 above the dust; 90 % floor is the seller's share
  expect(before).toMatchObject({
    status: 'ok',
    seller_wallet: getAddress(seller.address),
    pending_gross_raw: '499999',
    pending_raw: '449999',
    amount: '0.449999',
  });
  const contract = getAddress(before.payout_address!);
  const token = getAddress(before.token_address!);

  const transport = http(t.chain.rpcUrls.base, { retryCount: 0 });
  const pub = createPublicClient({ transport });
  const walletOf = (account: LocalAccount) =>
    createWalletClient({ account, chain: viemChain('base', t.chain.rpcUrls.base), transport });
  const stranger = newWallet();
  for (const w of [seller, stranger]) await t.chain.setNativeBalance('base', w.address, 10n ** 18n);
  const withdraw = (account: LocalAccount) =>
    walletOf(account).writeContract({
      address: contract,
      abi: PayoutSplitter.abi,
      functionName: 'withdraw',
      args: [token],
    });
  await expect(withdraw(stranger)).rejects.toThrow(/only the seller/);
  const hash = await withdraw(seller);
  expect((await pub.waitForTransactionReceipt({ hash })).status).toBe('success');
  expect(await t.usdcBalance('base', seller.address)).toBe(449_999n);
  expect(await t.usdcBalance('base', t.platform)).toBe(49_999n);
  // The contract keeps the dust (1 unit) and the rounding remainder (1 unit): nothing of it can
  // ever reach the seller, so nothing is reported pending
  expect(await t.usdcBalance('base', contract)).toBe(2n);
  expect(await readBase()).toMatchObject({
    status: 'ok',
    pending_gross_raw: '0',
    pending_raw: '0',
    amount: '0',
  });
});
