import { getAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalFacilitator } from '../../src/x402/local-facilitator.js';
import { activeListing, buy, callAs } from '../helpers/accounts.js';
import { startSellingApp, type SellingContext } from '../helpers/selling.js';
import { newWallet, promptOf, signPayment } from '../helpers/wallets.js';

let t: SellingContext;
beforeAll(async () => {
  t = await startSellingApp();
});
afterAll(() => t?.close());

const agentCount = async (address: string) => {
  const [row] = await t.runtime.deps.sql<{ n: number }[]>`
    select count(*)::int as n from agents where address = ${address.toLowerCase()}`;
  return row!.n;
};

describe('identity', () => {
  it('a wallet that never paid gets agent_not_found everywhere, and no account is created', async () => {
    const stranger = newWallet();
    for (const [method, url, body] of [
      ['GET', '/api/v1/agent/username', undefined],
      ['PUT', '/api/v1/agent/username', { username: 'fresh_name_1' }],
      ['GET', '/api/v1/agent/wallets', undefined],
      ['GET', '/api/v1/agent/sales-chains', undefined],
      ['PUT', '/api/v1/agent/sales-chains', { sales_chains: ['base'] }],
    ] as const) {
      const res = await callAs(t, stranger, method, url, body);
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.json()).toMatchObject({ error: 'agent_not_found' });
    }
    expect(await agentCount(stranger.address)).toBe(0);
  });
});

/** PUT username with `body` and a valid identity proof (callAs stops at the 400 before a prompt). */
async function putUsernameWithProof(wallet: ReturnType<typeof newWallet>, body: unknown) {
  const url = '/api/v1/agent/username';
  const headers = { 'content-type': 'application/json' };
  const first = await t.app.inject({
    method: 'PUT',
    url,
    headers,
    payload: JSON.stringify({ username: 'valid_name_1' }),
  });
  expect(first.statusCode).toBe(402);
  const prompt = promptOf(first);
  const { header } = await signPayment(wallet, prompt, prompt.accepts[0]!);
  return t.app.inject({
    method: 'PUT',
    url,
    headers: { ...headers, 'payment-signature': header },
    payload: JSON.stringify(body),
  });
}

describe('username', () => {
  it('is automatic until changed once; then user_set for good, and listings show it at once', async () => {
    const seller = newWallet();
    const itemId = await activeListing(t, seller);
    const before = await callAs(t, seller, 'GET', '/api/v1/agent/username');
    expect(before.statusCode).toBe(200);
    expect(before.json()).toEqual({
      username: expect.stringMatching(/^[a-z]+-[a-z]+-\d{3}$/),
      username_type: 'automatic',
    });
    const detailBefore = (await t.app.inject(`/api/v1/items/${itemId}`)).json();
    expect(detailBefore.metadata.seller_username).toBe(before.json().username);

    const put = await callAs(t, seller, 'PUT', '/api/v1/agent/username', {
      username: 'Otter_Works-7',
    });
    expect(put.statusCode).toBe(200);
    expect(put.json()).toEqual({ username: 'Otter_Works-7', username_type: 'user_set' });
    expect((await callAs(t, seller, 'GET', '/api/v1/agent/username')).json()).toEqual({
      username: 'Otter_Works-7',
      username_type: 'user_set',
    });
    const detail = (await t.app.inject(`/api/v1/items/${itemId}`)).json();
    expect(detail.metadata.seller_username).toBe('Otter_Works-7');
    const found = (
      await t.app.inject(`/api/v1/search?q=${encodeURIComponent('todo rest api')}`)
    ).json() as Array<{ id: string; metadata: { seller_username: string } }>;
    expect(found.find((i) => i.id === itemId)?.metadata.seller_username).toBe('Otter_Works-7');

    // a second change, even to a free valid name, is refused
    const again = await callAs(t, seller, 'PUT', '/api/v1/agent/username', {
      username: 'another_one',
    });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ error: 'username_already_changed' });
    // spec 3.4: once user_set, ANY attempt is 409, a name breaking the rules included
    for (const body of [{ username: 'ab' }, { username: '-dash-first' }, {}]) {
      const bad = await putUsernameWithProof(seller, body);
      expect(bad.statusCode, JSON.stringify(body)).toBe(409);
      expect(bad.json()).toMatchObject({ error: 'username_already_changed' });
    }
    expect((await callAs(t, seller, 'GET', '/api/v1/agent/username')).json().username).toBe(
      'Otter_Works-7',
    );
  });

  it('an automatic account with a proof still gets 400 invalid_username for a bad name', async () => {
    const seller = newWallet();
    await activeListing(t, seller);
    const bad = await putUsernameWithProof(seller, { username: 'ab' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ error: 'invalid_username' });
    expect((await callAs(t, seller, 'GET', '/api/v1/agent/username')).json().username_type).toBe(
      'automatic',
    );
  });

  it('is unique without regard to case: 409 username_taken, and the loser stays automatic', async () => {
    const a = newWallet();
    const b = newWallet();
    await activeListing(t, a);
    await activeListing(t, b);
    expect(
      (await callAs(t, a, 'PUT', '/api/v1/agent/username', { username: 'SameName' })).statusCode,
    ).toBe(200);
    const taken = await callAs(t, b, 'PUT', '/api/v1/agent/username', { username: 'samename' });
    expect(taken.statusCode).toBe(409);
    expect(taken.json()).toMatchObject({ error: 'username_taken' });
    expect((await callAs(t, b, 'GET', '/api/v1/agent/username')).json().username_type).toBe(
      'automatic',
    );
    expect((await callAs(t, a, 'GET', '/api/v1/agent/username')).json().username).toBe('SameName');
  });

  it('refuses names breaking the rules with 400 invalid_username, before any handshake', async () => {
    for (const body of [
      { username: 'short' },
      { username: 'x'.repeat(33) },
      { username: '_leading' },
      { username: 'trailing-' },
      { username: 'has space' },
      { username: 'dot.name' },
      { username: 'ünicode-name' },
      { username: 'nul\u0000name' },
      { username: 123456 },
      { name: 'wrong_key' },
      {},
      'plain',
    ]) {
      const res = await t.app.inject({
        method: 'PUT',
        url: '/api/v1/agent/username',
        payload: JSON.stringify(body),
        headers: { 'content-type': 'application/json' },
      });
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json()).toMatchObject({ error: 'invalid_username' });
    }
    // bounds: 6 and 32 characters are fine
    const six = newWallet();
    await activeListing(t, six);
    expect(
      (await callAs(t, six, 'PUT', '/api/v1/agent/username', { username: 'a1b2c3' })).statusCode,
    ).toBe(200);
    const long = newWallet();
    await activeListing(t, long);
    expect(
      (await callAs(t, long, 'PUT', '/api/v1/agent/username', { username: `z${'9'.repeat(31)}` }))
        .statusCode,
    ).toBe(200);
  });
});

describe('wallets', () => {
  it('lists the one address, valid on every chain, as primary', async () => {
    const buyer = newWallet();
    const seller = newWallet();
    await buy(t, buyer, await activeListing(t, seller));
    const res = await callAs(t, buyer, 'GET', '/api/v1/agent/wallets');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      wallets: [
        { address: getAddress(buyer.address), chains: ['base', 'polygon'], is_primary: true },
      ],
    });
  });

  it('routes for attaching another address exist and answer 404 feature_disabled', async () => {
    for (const [method, url] of [
      ['POST', '/api/v1/agent/wallets'],
      ['DELETE', `/api/v1/agent/wallets/${newWallet().address}`],
      ['POST', '/api/v1/auth/link-wallet'],
    ] as const) {
      const res = await t.app.inject({ method, url, ...(method === 'POST' && { payload: {} }) });
      expect(res.statusCode, url).toBe(404);
      expect(res.json()).toMatchObject({ error: 'feature_disabled' });
    }
    const skills = (await t.app.inject('/api/v1/skills')).json() as {
      endpoints: Array<{ method: string; path: string }>;
    };
    const listed = skills.endpoints.map((e) => `${e.method} ${e.path}`);
    expect(listed).toEqual(
      expect.arrayContaining([
        'POST /api/v1/agent/wallets',
        'POST /api/v1/auth/link-wallet',
        'DELETE /api/v1/agent/wallets/{address}',
      ]),
    );
  });
});

describe('sales chains', () => {
  it('defaults to every chain; bad lists are 400 invalid_sales_chains', async () => {
    const seller = newWallet();
    await activeListing(t, seller);
    expect((await callAs(t, seller, 'GET', '/api/v1/agent/sales-chains')).json()).toEqual({
      sales_chains: ['base', 'polygon'],
    });
    for (const body of [
      { sales_chains: [] },
      { sales_chains: ['solana'] },
      { sales_chains: ['base', 'base'] },
      { sales_chains: ['BASE'] },
      { sales_chains: 'base' },
      { sales_chains: [1] },
      {},
    ]) {
      const res = await callAs(t, seller, 'PUT', '/api/v1/agent/sales-chains', body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json()).toMatchObject({ error: 'invalid_sales_chains' });
    }
    expect(
      (await callAs(t, seller, 'GET', '/api/v1/agent/sales-chains')).json().sales_chains,
    ).toEqual(['base', 'polygon']);
  });

  it('an opt-out reaches a warm prompt at once, detail and search, and a signed completion on it is refused before settlement', async () => {
    const seller = newWallet();
    const itemId = await activeListing(t, seller, { title: 'Opt out widget kit' });
    const url = `/api/v1/items/${itemId}/acquire`;
    const warm = promptOf(await t.app.inject({ method: 'POST', url }));
    expect(warm.accepts.map((a) => a.network)).toEqual(['eip155:8453', 'eip155:137']);
    // a buyer signs the base requirement of the warm prompt, then the seller leaves base
    const buyer = newWallet();
    const signed = await signPayment(buyer, warm, warm.accepts[0]!);

    const put = await callAs(t, seller, 'PUT', '/api/v1/agent/sales-chains', {
      sales_chains: ['polygon'],
    });
    expect(put.statusCode).toBe(200);
    expect(put.json()).toEqual({ sales_chains: ['polygon'] });
    expect((await callAs(t, seller, 'GET', '/api/v1/agent/sales-chains')).json()).toEqual({
      sales_chains: ['polygon'],
    });

    const prompt = promptOf(await t.app.inject({ method: 'POST', url }));
    expect(prompt.accepts.map((a) => a.network)).toEqual(['eip155:137']);
    expect((await t.app.inject(`/api/v1/items/${itemId}`)).json().available_chains).toEqual([
      'polygon',
    ]);
    const found = (
      await t.app.inject(`/api/v1/search?q=${encodeURIComponent('opt out widget kit')}`)
    ).json() as Array<{ id: string; available_chains: string[] }>;
    expect(found.find((i) => i.id === itemId)?.available_chains).toEqual(['polygon']);

    const local = t.runtime.deps.facilitator as LocalFacilitator;
    const balance = await local.balanceOf('eip155:8453', buyer.address);
    const res = await t.app.inject({
      method: 'POST',
      url,
      headers: { 'payment-signature': signed.header },
      payload: { policy_accepted: true, license_accepted: true },
    });
    expect(res.statusCode).toBe(402);
    expect(res.json()).toMatchObject({ error: 'payment_verification_failed' });
    expect(await local.balanceOf('eip155:8453', buyer.address)).toBe(balance);
    expect(await agentCount(buyer.address)).toBe(0);

    // opting back in restores it
    await callAs(t, seller, 'PUT', '/api/v1/agent/sales-chains', {
      sales_chains: ['polygon', 'base'],
    });
    expect((await t.app.inject(`/api/v1/items/${itemId}`)).json().available_chains).toEqual([
      'base',
      'polygon',
    ]);
  });
});
