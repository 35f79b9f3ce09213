import type { LocalAccount } from 'viem';
import type { App } from '../../src/http/app.js';
import type { Chain } from '../../src/wire/chains.js';
import { NETWORK_OF } from '../../src/wire/chains.js';
import { newWallet, promptOf, signPayment } from './wallets.js';

/** Revision A helpers: SIWE challenges signed by real viem accounts, registration, keyed calls. */

export type Action = 'register' | 'link-wallet' | 'rotate-key';

export async function challenge(
  app: App,
  wallet: { address: string },
  action: Action,
  chain: Chain = 'base',
): Promise<string> {
  const res = await app.inject({
    method: 'POST',
    url: '/api/v1/auth/challenge',
    payload: { address: wallet.address, chain, action },
  });
  if (res.statusCode !== 200) throw new Error(`challenge: ${res.statusCode} ${res.body}`);
  return (res.json() as { message: string }).message;
}

/** A challenge for `action`, signed unchanged with personal_sign. */
export async function signedChallenge(
  app: App,
  wallet: LocalAccount,
  action: Action,
  chain: Chain = 'base',
): Promise<{ message: string; signature: string }> {
  const message = await challenge(app, wallet, action, chain);
  return { message, signature: await wallet.signMessage({ message }) };
}

let seq = 0;
export function uniqueUsername(prefix = 'agent'): string {
  seq += 1;
  return `${prefix}-${process.pid}-${seq}-${Math.floor(Math.random() * 1e6)}`.slice(0, 32);
}

export interface Registered {
  wallet: LocalAccount;
  agentId: string;
  apiKey: string;
  username: string;
}

/** Registers a fresh agent with one wallet linked on each given chain. */
export async function registerAgent(
  app: App,
  opts: { wallet?: LocalAccount; chains?: Chain[]; username?: string } = {},
): Promise<Registered> {
  const wallet = opts.wallet ?? newWallet();
  const username = opts.username ?? uniqueUsername();
  const wallets = [];
  for (const chain of opts.chains ?? ['base']) {
    const s = await signedChallenge(app, wallet, 'register', chain);
    wallets.push({ chain, address: wallet.address, ...s });
  }
  const res = await app.inject({
    method: 'POST',
    url: '/api/v1/register',
    payload: { username, country: 'DE', terms_agreed: true, wallets },
  });
  if (res.statusCode !== 201) throw new Error(`register: ${res.statusCode} ${res.body}`);
  const body = res.json() as { agent_id: string; api_key: string };
  return { wallet, agentId: body.agent_id, apiKey: body.api_key, username };
}

/** A completed keyed purchase (`POST /api/v1/buy`) of `itemId` on `chain`, paid by the buyer's wallet. */
export async function keyedBuy(
  app: App,
  buyer: Registered,
  itemId: string,
  chain: Chain = 'base',
): Promise<{ order_id: string; download_url: string; expires_in: string }> {
  const body = { item_id: itemId, chain };
  const headers = { 'x-api-key': buyer.apiKey };
  const prompt = await app.inject({ method: 'POST', url: '/api/v1/buy', headers, payload: body });
  if (prompt.statusCode !== 402) throw new Error(`buy prompt: ${prompt.statusCode} ${prompt.body}`);
  const required = promptOf(prompt);
  const requirement = required.accepts.find((a) => a.network === NETWORK_OF[chain])!;
  const { header } = await signPayment(buyer.wallet, required, requirement);
  const done = await app.inject({
    method: 'POST',
    url: '/api/v1/buy',
    headers: { ...headers, 'payment-signature': header },
    payload: { ...body, policy_accepted: true, license_accepted: true },
  });
  if (done.statusCode !== 200) throw new Error(`buy: ${done.statusCode} ${done.body}`);
  return done.json();
}
