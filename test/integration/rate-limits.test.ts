import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestContext } from '../helpers/app.js';
import { createSaleItem } from '../helpers/items.js';
import { challenge, registerAgent } from '../helpers/revision-a.js';
import { newWallet, promptOf, signPayment } from '../helpers/wallets.js';

/** Rate limits (src/http/plugins/rate-limit.ts): 429 rate_limited with Retry-After, per bucket. */

/** A well-formed key nobody was issued (the format of src/domain/auth/api-keys.ts). */
const guessedKey = () => `mk_${randomBytes(8).toString('hex')}_${'a'.repeat(43)}`;
const legal = { policy_accepted: true, license_accepted: true };
const from = (n: number) => `203.0.113.${n}`;

function expectLimited(res: {
  statusCode: number;
  headers: Record<string, unknown>;
  json(): unknown;
}) {
  expect(res.statusCode).toBe(429);
  const body = res.json() as { error: string; message: unknown; retry_after: number };
  expect(body.error).toBe('rate_limited');
  expect(typeof body.message).toBe('string');
  expect(body.retry_after).toBeGreaterThanOrEqual(1);
  expect(body.retry_after).toBeLessThanOrEqual(60);
  expect(res.headers['retry-after']).toBe(String(body.retry_after));
}

describe('defaults', () => {
  let t: TestContext;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('the manifest and the agent guide state the limits', async () => {
    const manifest = (await t.app.inject('/api/v1/skills')).json() as {
      limits: { rate_limits: Record<string, unknown> };
    };
    expect(manifest.limits.rate_limits).toMatchObject({
      window_seconds: t.config.RATE_LIMIT_WINDOW_SECONDS,
      unsigned_per_address: t.config.RATE_LIMIT_PUBLIC_MAX,
      per_wallet: t.config.RATE_LIMIT_ACCOUNT_MAX,
      failed_credentials_per_address: t.config.RATE_LIMIT_FAILURE_MAX,
    });
    const guide = (await t.app.inject('/agent-usage')).body;
    expect(guide).toContain('429 `rate_limited`');
    expect(guide).toContain('`Retry-After`');
    expect(guide).toContain(`${t.config.RATE_LIMIT_FAILURE_MAX} per client address`);
    expect(guide).toContain('503 `storage_unavailable`');
  });

  it('1,000 requests a minute from one address pass with the default limits', async () => {
    for (let i = 0; i < 1000; i++) {
      const res = await t.app.inject({ url: '/', remoteAddress: from(1) });
      expect(res.statusCode).toBe(200);
    }
  });
});

describe('Revision B buckets', () => {
  let t: TestContext;
  beforeAll(async () => {
    t = await startTestApp({
      RATE_LIMIT_PUBLIC_MAX: '3',
      RATE_LIMIT_FAILURE_MAX: '2',
      RATE_LIMIT_ACCOUNT_MAX: '4',
    });
  });
  afterAll(() => t.close());

  it('unsigned requests are counted per client address; another address is unaffected', async () => {
    for (let i = 0; i < 3; i++) {
      const ok = await t.app.inject({ url: '/api/v1/search?q=todo', remoteAddress: from(10) });
      expect(ok.statusCode).toBe(200);
    }
    expectLimited(await t.app.inject({ url: '/api/v1/search?q=todo', remoteAddress: from(10) }));
    // a junk payment header on a public route does not bypass the unsigned bucket
    expectLimited(
      await t.app.inject({
        url: '/api/v1/search?q=todo',
        remoteAddress: from(10),
        headers: { 'payment-signature': 'junk' },
      }),
    );
    const other = await t.app.inject({ url: '/api/v1/search?q=todo', remoteAddress: from(11) });
    expect(other.statusCode).toBe(200);
    // health probes are never counted
    const health = await t.app.inject({ url: '/api/v1/health', remoteAddress: from(10) });
    expect(health.statusCode).toBe(200);
  });

  it('a paying customer whose address spent its unsigned bucket is still served', async () => {
    const item = await createSaleItem(t.runtime.deps);
    const url = `/api/v1/items/${item.itemId}/acquire`;
    const prompt = promptOf(await t.app.inject({ method: 'POST', url, remoteAddress: from(20) }));
    for (let i = 0; i < 3; i++) await t.app.inject({ url: '/', remoteAddress: from(20) });
    expectLimited(await t.app.inject({ url: '/', remoteAddress: from(20) }));
    for (let i = 0; i < 5; i++) {
      const { header } = await signPayment(newWallet(), prompt, prompt.accepts[0]!);
      const paid = await t.app.inject({
        method: 'POST',
        url,
        payload: legal,
        remoteAddress: from(20),
        headers: { 'payment-signature': header },
      });
      expect(paid.statusCode).toBe(200);
      expect(paid.json().order_id).toBeTruthy();
    }
  });

  it('failed signatures fill a small bucket; then signed requests of that address are refused', async () => {
    const item = await createSaleItem(t.runtime.deps);
    const url = `/api/v1/items/${item.itemId}/acquire`;
    const prompt = promptOf(await t.app.inject({ method: 'POST', url, remoteAddress: from(30) }));
    const wallet = newWallet();
    // signed by another key than the `from` it claims: verification fails, nothing is charged
    const forged = async () =>
      (await signPayment(wallet, prompt, prompt.accepts[0]!, { signer: newWallet() })).header;
    for (let i = 0; i < 2; i++) {
      const res = await t.app.inject({
        method: 'POST',
        url,
        payload: legal,
        remoteAddress: from(30),
        headers: { 'payment-signature': await forged() },
      });
      expect(res.statusCode).toBe(402);
      expect(res.json().error).toBe('payment_verification_failed');
    }
    expectLimited(
      await t.app.inject({
        method: 'POST',
        url,
        payload: legal,
        remoteAddress: from(30),
        headers: { 'payment-signature': await forged() },
      }),
    );
    // another address still pays and is served
    const { header } = await signPayment(newWallet(), prompt, prompt.accepts[0]!);
    const ok = await t.app.inject({
      method: 'POST',
      url,
      payload: legal,
      remoteAddress: from(31),
      headers: { 'payment-signature': header },
    });
    expect(ok.statusCode).toBe(200);
  });

  it('replayed authorizations (409) and proofs of wallets without an account (404) fill the failure bucket', async () => {
    const [bought, other] = [
      await createSaleItem(t.runtime.deps),
      await createSaleItem(t.runtime.deps),
    ];
    const acquire = (itemId: string, signature: string) =>
      t.app.inject({
        method: 'POST',
        url: `/api/v1/items/${itemId}/acquire`,
        payload: legal,
        remoteAddress: from(70),
        headers: { 'payment-signature': signature },
      });
    const prompt = promptOf(
      await t.app.inject({
        method: 'POST',
        url: `/api/v1/items/${bought.itemId}/acquire`,
        remoteAddress: from(70),
      }),
    );
    const { header } = await signPayment(newWallet(), prompt, prompt.accepts[0]!);
    expect((await acquire(bought.itemId, header)).statusCode).toBe(200);
    // the paid authorization replayed for another item: refused, and a failed credential
    const replay = await acquire(other.itemId, header);
    expect(replay.statusCode).toBe(409);
    expect(replay.json().error).toBe('authorization_already_used');
    // a fresh identity proof of a wallet that never paid: refused, and a failed credential
    const username = async () => {
      const ask = promptOf(
        await t.app.inject({ url: '/api/v1/agent/username', remoteAddress: from(70) }),
      );
      const proof = await signPayment(newWallet(), ask, ask.accepts[0]!);
      return t.app.inject({
        url: '/api/v1/agent/username',
        remoteAddress: from(70),
        headers: { 'payment-signature': proof.header },
      });
    };
    const unknown = await username();
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error).toBe('agent_not_found');
    expectLimited(await acquire(other.itemId, header));
    expectLimited(await username());
  });

  it('identity routes are counted per verified wallet, whatever the address', async () => {
    const item = await createSaleItem(t.runtime.deps);
    const buyer = newWallet();
    const url = `/api/v1/items/${item.itemId}/acquire`;
    const buyPrompt = promptOf(
      await t.app.inject({ method: 'POST', url, remoteAddress: from(40) }),
    );
    const { header: pay } = await signPayment(buyer, buyPrompt, buyPrompt.accepts[0]!);
    const bought = await t.app.inject({
      method: 'POST',
      url,
      payload: legal,
      remoteAddress: from(40),
      headers: { 'payment-signature': pay },
    });
    expect(bought.statusCode).toBe(200);
    const me = async (n: number) => {
      const first = await t.app.inject({ url: '/api/v1/agent/username', remoteAddress: from(n) });
      const prompt = promptOf(first);
      const { header } = await signPayment(buyer, prompt, prompt.accepts[0]!);
      return t.app.inject({
        url: '/api/v1/agent/username',
        remoteAddress: from(n),
        headers: { 'payment-signature': header },
      });
    };
    for (let i = 0; i < 4; i++) expect((await me(41 + i)).statusCode).toBe(200);
    expectLimited(await me(45));
    // another wallet is unaffected
    const other = newWallet();
    const first = await t.app.inject({ url: '/api/v1/agent/username', remoteAddress: from(46) });
    const prompt = promptOf(first);
    const { header } = await signPayment(other, prompt, prompt.accepts[0]!);
    const res = await t.app.inject({
      url: '/api/v1/agent/username',
      remoteAddress: from(46),
      headers: { 'payment-signature': header },
    });
    expect(res.statusCode).toBe(404);
    expect(res.json().error).toBe('agent_not_found');
  });
});

describe('Revision A buckets', () => {
  let t: TestContext;
  beforeAll(async () => {
    t = await startTestApp({
      CONTRACT_REVISION: 'A',
      RATE_LIMIT_FAILURE_MAX: '3',
      RATE_LIMIT_CHALLENGE_MAX: '5',
    });
  });
  afterAll(() => t.close());

  it('guessed API keys are refused after a few failures, before any lookup; a good key elsewhere works', async () => {
    const agent = await registerAgent(t.app);
    const guess = (n: number, key: string) =>
      t.app.inject({
        url: '/api/v1/seller/payouts',
        remoteAddress: from(n),
        headers: { 'x-api-key': key },
      });
    for (let i = 0; i < 3; i++) {
      const res = await guess(50, guessedKey());
      expect(res.statusCode).toBe(401);
    }
    expectLimited(await guess(50, guessedKey()));
    expectLimited(await guess(50, agent.apiKey));
    const ok = await guess(51, agent.apiKey);
    expect(ok.statusCode).toBe(200);
  });

  it('SIWE challenges are counted per client address', async () => {
    const wallet = newWallet();
    const ask = (n: number) =>
      t.app.inject({
        method: 'POST',
        url: '/api/v1/auth/challenge',
        remoteAddress: from(n),
        payload: { address: wallet.address, chain: 'base', action: 'register' },
      });
    for (let i = 0; i < 5; i++) expect((await ask(60)).statusCode).toBe(200);
    expectLimited(await ask(60));
    expect((await ask(61)).statusCode).toBe(200);
    // the helper still works from the default inject address
    expect(await challenge(t.app, wallet, 'register')).toContain('wants you to sign in');
  });
});

describe('client address behind a proxy (TRUST_PROXY)', () => {
  const search = (t: TestContext, peer: string, forwardedFor: string) =>
    t.app.inject({
      url: '/api/v1/search?q=todo',
      remoteAddress: peer,
      headers: { 'x-forwarded-for': forwardedFor },
    });

  it('by default a client from a public address is counted by its own address, whatever X-Forwarded-For it forges; a private-network proxy is believed', async () => {
    const t = await startTestApp({ RATE_LIMIT_PUBLIC_MAX: '3' });
    try {
      // direct from 198.51.100.20, a new forged address each time: one client, limited as one
      for (let i = 0; i < 3; i++)
        expect((await search(t, '198.51.100.20', from(100 + i))).statusCode).toBe(200);
      expectLimited(await search(t, '198.51.100.20', from(110)));
      // nor can a forged private hop after the public peer launder the header
      expectLimited(await search(t, '198.51.100.20', `${from(111)}, 10.0.0.9`));
      // behind a compose/Kubernetes proxy the client it names is the address counted: a
      // cluster hop (10.42.0.7) after an ingress (172.18.0.5), a loopback or IPv6 private proxy
      const hops = [
        ['10.42.0.7', '198.51.100.30, 172.18.0.5'],
        ['127.0.0.1', '198.51.100.30'],
        ['fd00::5', '198.51.100.30'],
      ];
      for (const [peer, forwarded] of hops)
        expect((await search(t, peer!, forwarded!)).statusCode).toBe(200);
      expectLimited(await search(t, '172.18.0.5', '198.51.100.30'));
      expect((await search(t, '172.18.0.5', '198.51.100.31')).statusCode).toBe(200);
    } finally {
      await t.close();
    }
  });

  it('with one trusted hop the client is the entry our proxy appended, not a spoofed first one', async () => {
    const t = await startTestApp({ TRUST_PROXY: '1', RATE_LIMIT_PUBLIC_MAX: '3' });
    try {
      // the proxy (10.0.0.2) appends the real peer 198.51.100.7 to whatever the client sent
      for (let i = 0; i < 3; i++) {
        const res = await search(t, '10.0.0.2', `${from(100 + i)}, 198.51.100.7`);
        expect(res.statusCode).toBe(200);
      }
      expectLimited(await search(t, '10.0.0.2', `${from(200)}, 198.51.100.7`));
      expect((await search(t, '10.0.0.2', `${from(200)}, 198.51.100.8`)).statusCode).toBe(200);
    } finally {
      await t.close();
    }
  });

  it('with the proxy listed by CIDR, a client reaching the service directly cannot name its address', async () => {
    const t = await startTestApp({ TRUST_PROXY: '10.0.0.0/8', RATE_LIMIT_PUBLIC_MAX: '3' });
    try {
      for (let i = 0; i < 3; i++) {
        const res = await search(t, '10.1.2.3', `${from(100 + i)}, 198.51.100.9`);
        expect(res.statusCode).toBe(200);
      }
      expectLimited(await search(t, '10.1.2.3', `${from(200)}, 198.51.100.9`));
      // direct from 192.0.2.50 (not a listed proxy): its X-Forwarded-For is not believed
      for (let i = 0; i < 3; i++)
        expect((await search(t, '192.0.2.50', from(120 + i))).statusCode).toBe(200);
      expectLimited(await search(t, '192.0.2.50', from(130)));
    } finally {
      await t.close();
    }
  });
});
