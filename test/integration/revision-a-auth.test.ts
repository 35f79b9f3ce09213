import { openSync, readFileSync, closeSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSiweMessage } from 'viem/siwe';
import { createLogger } from '../../src/logger.js';
import { periodicTasks } from '../../src/runtime.js';
import { startTestApp, type TestContext } from '../helpers/app.js';
import {
  challenge,
  registerAgent,
  signedChallenge,
  uniqueUsername,
} from '../helpers/revision-a.js';
import { newWallet } from '../helpers/wallets.js';

let t: TestContext;
let logFile: string;
let logFd: number;
beforeAll(async () => {
  logFile = path.join(mkdtempSync(path.join(tmpdir(), 'reva-logs-')), 'app.log');
  logFd = openSync(logFile, 'w');
  t = await startTestApp(
    { CONTRACT_REVISION: 'A' },
    { logger: createLogger({ LOG_LEVEL: 'trace' }, logFd) },
  );
});
afterAll(async () => {
  await t?.close();
  closeSync(logFd);
});

const post = (url: string, payload: unknown, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'POST', url, payload: payload as object, headers });

async function registerBody(
  wallet = newWallet(),
  extra: Record<string, unknown> = {},
): Promise<Record<string, unknown>> {
  const s = await signedChallenge(t.app, wallet, 'register');
  return {
    username: uniqueUsername(),
    country: 'FR',
    terms_agreed: true,
    wallets: [{ chain: 'base', address: wallet.address, ...s }],
    ...extra,
  };
}

describe('SIWE challenge', () => {
  it('is a strict EIP-4361 message for this deployment: domain, URI, chain id, nonce, 5 minutes', async () => {
    const wallet = newWallet();
    const message = await challenge(t.app, wallet, 'register', 'polygon');
    expect(message).not.toContain('\r');
    const m = parseSiweMessage(message);
    expect(m).toMatchObject({
      domain: 'marketplace.test',
      address: wallet.address,
      uri: 'http://marketplace.test',
      version: '1',
      chainId: 137,
    });
    expect(m.statement).toMatch(/Register/);
    expect(m.nonce).toMatch(/^[A-Za-z0-9]{8,}$/);
    expect(m.expirationTime!.getTime() - m.issuedAt!.getTime()).toBe(300_000);
    expect(Math.abs(m.issuedAt!.getTime() - Date.now())).toBeLessThan(10_000);
    const other = await challenge(t.app, wallet, 'register', 'polygon');
    expect(parseSiweMessage(other).nonce).not.toBe(m.nonce);
  });

  it.each([
    [{ address: '0x1234', chain: 'base', action: 'register' }, 'invalid_address'],
    [{ address: newWallet().address, chain: 'solana', action: 'register' }, 'unsupported_chain'],
    [{ address: newWallet().address, chain: 'base', action: 'login' }, 'invalid_action'],
  ])('refuses bad input %j with %s', async (payload, code) => {
    const res = await post('/api/v1/auth/challenge', payload);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: code });
  });
});

describe('registration', () => {
  it('creates an account with its key shown once; the key works on a keyed route', async () => {
    const wallet = newWallet();
    const body = await registerBody(wallet);
    const res = await post('/api/v1/register', body);
    expect(res.statusCode).toBe(201);
    const { agent_id, api_key } = res.json();
    expect(Object.keys(res.json()).sort()).toEqual(['agent_id', 'api_key']);
    expect(agent_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(api_key.length).toBeGreaterThanOrEqual(40);
    // The key proves the account: linking a second wallet with it succeeds.
    const second = newWallet();
    const link = await post(
      '/api/v1/auth/link-wallet',
      await signedChallenge(t.app, second, 'link-wallet', 'polygon'),
      { 'X-API-KEY': api_key },
    );
    expect(link.statusCode).toBe(200);
    expect(link.json().message).toContain(second.address);
    // Only a hash is stored.
    const rows = await t.runtime.deps.sql`select * from api_keys where agent_id = ${agent_id}`;
    expect(JSON.stringify(rows)).not.toContain(api_key.slice(20));
  });

  it.each([
    [{ username: 'ab' }, 'invalid_username'],
    [{ username: '-starts-with-dash' }, 'invalid_username'],
    [{ country: 'XX' }, 'invalid_country'],
    [{ country: 'Germany' }, 'invalid_country'],
    [{ terms_agreed: false }, 'terms_not_agreed'],
    [{ terms_agreed: undefined }, 'terms_not_agreed'],
    [{ wallets: [] }, 'invalid_wallets'],
    [{ wallets: 'none' }, 'invalid_wallets'],
  ])('refuses %j with %s', async (override, code) => {
    const res = await post('/api/v1/register', await registerBody(newWallet(), override));
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: code });
  });

  it('a replayed challenge is refused (challenge_used)', async () => {
    const wallet = newWallet();
    const body = await registerBody(wallet);
    expect((await post('/api/v1/register', body)).statusCode).toBe(201);
    const again = await post('/api/v1/register', { ...body, username: uniqueUsername() });
    expect(again.statusCode).toBe(400);
    expect(again.json()).toMatchObject({ error: 'challenge_used' });
  });

  it('an expired challenge is refused (challenge_expired)', async () => {
    const body = await registerBody();
    const { nonce } = parseSiweMessage((body.wallets as Array<{ message: string }>)[0]!.message);
    await t.runtime.deps.sql`
      update siwe_challenges set expires_at = now() - interval '1 second' where nonce = ${nonce!}`;
    const res = await post('/api/v1/register', body);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'challenge_expired' });
  });

  it('the purge drops challenges a day past expiry, and their replay stays refused', async () => {
    const body = await registerBody();
    const { nonce } = parseSiweMessage((body.wallets as Array<{ message: string }>)[0]!.message);
    const fresh = await registerBody(); // not expired: kept
    const freshNonce = parseSiweMessage(
      (fresh.wallets as Array<{ message: string }>)[0]!.message,
    ).nonce!;
    await t.runtime.deps.sql`
      update siwe_challenges set expires_at = now() - interval '25 hours' where nonce = ${nonce!}`;
    const purge = periodicTasks(t.runtime.deps).find((task) => task.name === 'purge')!;
    expect(await purge.run()).toMatchObject({ challenges: 1 });
    const left = await t.runtime.deps.sql<{ nonce: string }[]>`
      select nonce from siwe_challenges where nonce in (${nonce!}, ${freshNonce})`;
    expect(left.map((r) => r.nonce)).toEqual([freshNonce]);
    const res = await post('/api/v1/register', body);
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatch(/challenge/);
  });

  it('a challenge for another action, an edited message, a wrong signer or address are refused', async () => {
    const wallet = newWallet();
    const rotate = await signedChallenge(t.app, wallet, 'rotate-key');
    const mismatch = await post('/api/v1/register', {
      ...(await registerBody(wallet)),
      wallets: [{ chain: 'base', address: wallet.address, ...rotate }],
    });
    expect(mismatch.json()).toMatchObject({ error: 'challenge_action_mismatch' });

    const message = await challenge(t.app, wallet, 'register');
    const edited = message.replace('Register this wallet', 'Register these wallets');
    const tampered = await post('/api/v1/register', {
      ...(await registerBody(wallet)),
      wallets: [
        {
          chain: 'base',
          address: wallet.address,
          message: edited,
          signature: await wallet.signMessage({ message: edited }),
        },
      ],
    });
    expect(tampered.statusCode).toBe(400);
    expect(tampered.json()).toMatchObject({ error: 'invalid_challenge' });

    const wrongSigner = await post('/api/v1/register', {
      ...(await registerBody(wallet)),
      wallets: [
        {
          chain: 'base',
          address: wallet.address,
          message,
          signature: await newWallet().signMessage({ message }),
        },
      ],
    });
    expect(wrongSigner.statusCode).toBe(400);
    expect(wrongSigner.json()).toMatchObject({ error: 'invalid_signature' });

    const otherAddress = newWallet();
    const misnamed = await post('/api/v1/register', {
      ...(await registerBody(wallet)),
      wallets: [
        {
          chain: 'base',
          address: otherAddress.address,
          message,
          signature: await wallet.signMessage({ message }),
        },
      ],
    });
    expect(misnamed.json()).toMatchObject({ error: 'invalid_challenge' });
    // None of the refusals consumed the challenge: the genuine request still works.
    const ok = await post('/api/v1/register', {
      ...(await registerBody(wallet)),
      wallets: [
        {
          chain: 'base',
          address: wallet.address,
          message,
          signature: await wallet.signMessage({ message }),
        },
      ],
    });
    expect(ok.statusCode).toBe(201);
  });

  it('a wallet already registered, or a taken username, is a 409', async () => {
    const a = await registerAgent(t.app);
    const again = await post('/api/v1/register', await registerBody(a.wallet));
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ error: 'wallet_already_registered' });
    const taken = await post(
      '/api/v1/register',
      await registerBody(newWallet(), { username: a.username.toUpperCase() }),
    );
    expect(taken.statusCode).toBe(409);
    expect(taken.json()).toMatchObject({ error: 'username_taken' });
  });

  it('registers one wallet on both chains in one request', async () => {
    const a = await registerAgent(t.app, { chains: ['base', 'polygon'] });
    const rows = await t.runtime.deps.sql<{ chain: string }[]>`
      select chain from linked_wallets where agent_id = ${a.agentId} order by chain`;
    expect(rows.map((r) => r.chain)).toEqual(['base', 'polygon']);
  });
});

describe('API keys', () => {
  it('a missing or invalid key is a 401 { error, message }', async () => {
    const body = await signedChallenge(t.app, newWallet(), 'link-wallet');
    for (const headers of <Array<Record<string, string>>>[
      {},
      { 'x-api-key': '' },
      { 'x-api-key': 'not-a-key' },
      { 'x-api-key': `mk_0123456789abcdef_${'A'.repeat(43)}` },
    ]) {
      const res = await post('/api/v1/auth/link-wallet', body, headers);
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ error: 'unauthorized', message: expect.any(String) });
    }
  });

  it('rotate-key issues a new key and the old one stops working at once', async () => {
    const a = await registerAgent(t.app);
    const res = await post(
      '/api/v1/auth/rotate-key',
      await signedChallenge(t.app, a.wallet, 'rotate-key'),
    );
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ api_key: expect.any(String), agent_id: a.agentId });
    const fresh = res.json().api_key as string;
    expect(fresh).not.toBe(a.apiKey);
    const link = (key: string) =>
      signedChallenge(t.app, newWallet(), 'link-wallet').then((b) =>
        post('/api/v1/auth/link-wallet', b, { 'x-api-key': key }),
      );
    expect((await link(a.apiKey)).statusCode).toBe(401);
    expect((await link(fresh)).statusCode).toBe(200);
  });

  it('rotate-key signed by any linked wallet works; by an unknown wallet it is agent_not_found', async () => {
    const a = await registerAgent(t.app);
    const second = newWallet();
    await post('/api/v1/auth/link-wallet', await signedChallenge(t.app, second, 'link-wallet'), {
      'x-api-key': a.apiKey,
    });
    const bySecond = await post(
      '/api/v1/auth/rotate-key',
      await signedChallenge(t.app, second, 'rotate-key', 'polygon'),
    );
    expect(bySecond.json()).toMatchObject({ agent_id: a.agentId });
    const stranger = await post(
      '/api/v1/auth/rotate-key',
      await signedChallenge(t.app, newWallet(), 'rotate-key'),
    );
    expect(stranger.statusCode).toBe(404);
    expect(stranger.json()).toMatchObject({ error: 'agent_not_found' });
  });

  it('a rotate-key proof refused with agent_not_found is spent: replayed once the wallet is registered, it mints no key', async () => {
    const wallet = newWallet();
    const proof = await signedChallenge(t.app, wallet, 'rotate-key');
    const early = await post('/api/v1/auth/rotate-key', proof);
    expect(early.json()).toMatchObject({ error: 'agent_not_found' });
    // the wallet is registered afterwards; whoever kept the refused proof replays it
    const a = await registerAgent(t.app, { wallet });
    const replay = await post('/api/v1/auth/rotate-key', proof);
    expect(replay.statusCode).toBe(400);
    expect(replay.json()).toMatchObject({ error: 'challenge_used' });
    expect(replay.body).not.toContain('api_key');
    // the owner's key still works (nothing was rotated)
    const link = await post(
      '/api/v1/auth/link-wallet',
      await signedChallenge(t.app, newWallet(), 'link-wallet'),
      { 'x-api-key': a.apiKey },
    );
    expect(link.statusCode).toBe(200);
  });

  it('a wallet linked to one agent cannot be linked or registered by another', async () => {
    const a = await registerAgent(t.app);
    const b = await registerAgent(t.app);
    const res = await post(
      '/api/v1/auth/link-wallet',
      await signedChallenge(t.app, a.wallet, 'link-wallet', 'polygon'),
      { 'x-api-key': b.apiKey },
    );
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ error: 'wallet_already_linked' });
    // Linking the same wallet again to its own agent is harmless.
    const own = await post(
      '/api/v1/auth/link-wallet',
      await signedChallenge(t.app, a.wallet, 'link-wallet', 'polygon'),
      { 'x-api-key': a.apiKey },
    );
    expect(own.statusCode).toBe(200);
  });

  it('no key ever reaches a log line', async () => {
    const a = await registerAgent(t.app);
    await post(
      '/api/v1/auth/link-wallet',
      await signedChallenge(t.app, newWallet(), 'link-wallet'),
      {
        'x-api-key': a.apiKey,
      },
    );
    t.runtime.deps.logger.flush();
    await new Promise((r) => setTimeout(r, 200));
    const log = readFileSync(logFile, 'utf8');
    expect(log.length).toBeGreaterThan(0);
    expect(log).not.toContain(a.apiKey.slice(20));
  });
});

describe('Revision B has none of it', () => {
  it('answers 404 for the Revision A identity routes', async () => {
    const b = await startTestApp();
    try {
      for (const url of ['/api/v1/auth/challenge', '/api/v1/register', '/api/v1/auth/rotate-key']) {
        const res = await b.app.inject({ method: 'POST', url, payload: {} });
        expect(res.statusCode, url).toBe(404);
      }
    } finally {
      await b.close();
    }
  });
});
