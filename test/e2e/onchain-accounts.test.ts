import { x402Client } from '@x402/core/client';
import { decodePaymentResponseHeader } from '@x402/core/http';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { wrapFetchWithPayment } from '@x402/fetch';
import type { FastifyInstance } from 'fastify';
import {
  createPublicClient,
  encodeFunctionData,
  getAddress,
  http,
  keccak256,
  serializeErc6492Signature,
  toHex,
  type Address,
  type LocalAccount,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SmartAccountFactory } from '../../src/chain/artifacts.js';
import { ChainFacilitator } from '../../src/chain/chain-facilitator.js';
import { Relayer } from '../../src/chain/clients.js';
import { buildFacilitatorServer } from '../../tools/chain/facilitator-server.js';
import { loadConfig } from '../../src/config.js';
import { paymentNetworks } from '../../src/x402/networks.js';
import { freePort } from '../helpers/app.js';
import {
  deploySmartAccount,
  predictSmartAccount,
  startChainTestApp,
  type ChainTestContext,
} from '../helpers/chain.js';
import { newWallet } from '../helpers/wallets.js';

/**
 * Smart-account payers (spec 5.2) through the standalone facilitator server: the service runs with
 * FACILITATOR_URL pointing at `buildFacilitatorServer` (its own relayer key) over the devchain.
 * A minimal ERC-1271 account pays and proves identity; an ERC-6492 signature of an account that
 * does not exist yet verifies, and pays once the facilitator deploys it through an allowed factory.
 */
let t: ChainTestContext;
let facilitatorServer: FastifyInstance;
let facilitatorUrl: string;

beforeAll(async () => {
  t = await startChainTestApp(
    {},
    {
      beforeApp: async (chain) => {
        const env = {
          RPC_URL_BASE: chain.rpcUrls.base,
          RPC_URL_POLYGON: chain.rpcUrls.polygon,
          LOG_LEVEL: 'silent',
        };
        const config = loadConfig(env);
        // The standalone server pays gas with its own key (hardhat's account #0, the deployer).
        const relayer = new Relayer(privateKeyToAccount(chain.deployerKey), chain.rpcUrls);
        facilitatorServer = buildFacilitatorServer(
          new ChainFacilitator({
            networks: paymentNetworks(config),
            relayer,
            confirmationTimeoutMs: 10_000,
            eip6492AllowedFactories: [chain.accountFactory],
          }),
        );
        const port = await freePort();
        await facilitatorServer.listen({ port, host: '127.0.0.1' });
        facilitatorUrl = `http://127.0.0.1:${port}`;
        return { FACILITATOR_URL: facilitatorUrl };
      },
    },
  );
});
afterAll(async () => {
  await t?.close();
  await facilitatorServer?.close();
});

const json = { 'content-type': 'application/json' };

/** An x402 client signer that is a smart account: its owner signs, the account is `from`. */
function accountSigner(
  address: Address,
  owner: LocalAccount,
  wrap?: (signature: `0x${string}`) => `0x${string}`,
) {
  return {
    address,
    async signTypedData(args: Parameters<LocalAccount['signTypedData']>[0]) {
      const signature = await owner.signTypedData(args);
      return wrap ? wrap(signature) : signature;
    },
  };
}

it('the standalone facilitator answers /supported for both networks', async () => {
  const res = await fetch(`${facilitatorUrl}/supported`);
  const body = (await res.json()) as { kinds: Array<{ network: string; scheme: string }> };
  expect(body.kinds.map((k) => k.network).sort()).toEqual(['eip155:137', 'eip155:8453']);
  const bad = await fetch(`${facilitatorUrl}/verify`, {
    method: 'POST',
    headers: json,
    body: '{}',
  });
  expect(bad.status).toBe(400);
});

it('an ERC-1271 smart account buys through FACILITATOR_URL and proves identity (zero-value)', async () => {
  const item = await t.sellerWithItem({ priceUsdc: 0.5 });
  const owner = newWallet();
  const salt = keccak256(toHex('account-1271'));
  // Deploy the account (anyone may), then fund it with USDC.
  const account = await deploySmartAccount(t.chain, owner.address, salt);
  const pub = createPublicClient({ transport: http(t.chain.rpcUrls.base) });
  expect(await pub.getCode({ address: account })).not.toBe('0x');
  await t.chain.fundUsdc('base', account, 1_000_000n);

  const client = new x402Client();
  registerExactEvmScheme(client, { signer: accountSigner(account, owner) });
  const pay = wrapFetchWithPayment(fetch, client);
  const res = await pay(`${t.base}/api/v1/items/${item.itemId}/acquire`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ chain: 'base', policy_accepted: true, license_accepted: true }),
  });
  expect(res.status, await res.clone().text()).toBe(200);
  expect(decodePaymentResponseHeader(res.headers.get('PAYMENT-RESPONSE')!)).toMatchObject({
    success: true,
    payer: account,
  });
  expect(await t.usdcBalance('base', account)).toBe(500_000n);
  const { order_id } = (await res.json()) as { order_id: string };
  const [order] = await t.runtime.deps.sql<{ payer: string }[]>`
    select payer from orders where id = ${order_id}`;
  expect(order!.payer).toBe(account.toLowerCase());

  // The same account proves identity with a zero-value signature on its own order.
  const links = await pay(`${t.base}/api/v1/orders/${order_id}`);
  expect(links.status).toBe(200);
  // The owner's own EOA is another identity: it owns no order.
  const ownerClient = new x402Client();
  registerExactEvmScheme(ownerClient, { signer: owner });
  const asOwner = await wrapFetchWithPayment(
    fetch,
    ownerClient,
  )(`${t.base}/api/v1/orders/${order_id}`);
  expect(asOwner.status).toBe(404);
});

it('an ERC-6492 signature of a not-yet-deployed account verifies, and pays once deployed by the facilitator', async () => {
  const owner = newWallet();
  const salt = keccak256(toHex('account-6492'));
  const account = await predictSmartAccount(t.chain, owner.address, salt);
  const pub = createPublicClient({ transport: http(t.chain.rpcUrls.base) });
  expect(await pub.getCode({ address: account })).toBeUndefined();
  const wrap = (signer: LocalAccount) => (signature: `0x${string}`) =>
    serializeErc6492Signature({
      address: t.chain.accountFactory,
      data: encodeFunctionData({
        abi: SmartAccountFactory.abi,
        functionName: 'createAccount',
        args: [signer.address, salt],
      }),
      signature,
    });

  // Identity: a valid 6492 proof reaches the route (this wallet never paid: agent_not_found); a
  // proof signed by someone else is refused as an invalid signature.
  const idClient = new x402Client();
  registerExactEvmScheme(idClient, { signer: accountSigner(account, owner, wrap(owner)) });
  const probe = `${t.base}/api/v1/orders/00000000-0000-4000-8000-000000000000`;
  const ok = await wrapFetchWithPayment(fetch, idClient)(probe);
  expect(ok.status).toBe(404);
  expect(await ok.json()).toMatchObject({ error: 'agent_not_found' });
  const intruder = newWallet();
  const badClient = new x402Client();
  registerExactEvmScheme(badClient, { signer: accountSigner(account, intruder, wrap(owner)) });
  const bad = await wrapFetchWithPayment(fetch, badClient)(probe);
  expect(bad.status).toBe(402);
  expect(await bad.json()).toMatchObject({
    error: 'payment_verification_failed',
    reason: 'invalid_exact_evm_signature',
  });

  // Paying: USDC can sit at the counterfactual address; the facilitator deploys it, then settles.
  const item = await t.sellerWithItem({ priceUsdc: 0.25 });
  await t.chain.fundUsdc('base', account, 1_000_000n);
  const res = await wrapFetchWithPayment(fetch, idClient)(
    `${t.base}/api/v1/items/${item.itemId}/acquire`,
    {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ chain: 'base', policy_accepted: true, license_accepted: true }),
    },
  );
  expect(res.status, await res.clone().text()).toBe(200);
  expect(await pub.getCode({ address: account })).not.toBe('0x');
  expect(await t.usdcBalance('base', account)).toBe(750_000n);
  expect(getAddress(account)).toBe(account);
});
