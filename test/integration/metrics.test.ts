import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { LocalFacilitator } from '../../src/x402/local-facilitator.js';
import { startMetricsServer } from '../../src/http/metrics-server.js';
import { uniqueProject, zipOf } from '../helpers/archives.js';
import { createSaleItem } from '../helpers/items.js';
import { listItem, startSellingApp, type SellingContext } from '../helpers/selling.js';
import { newWallet, promptOf, signPayment } from '../helpers/wallets.js';

const TOKEN = 'metrics-token-for-the-test-0123456789';

let t: SellingContext;
beforeAll(async () => {
  t = await startSellingApp({ METRICS_TOKEN: TOKEN, LOCAL_FACILITATOR_START_BALANCE_USDC: '10' });
});
afterAll(async () => {
  await t?.close();
});

/** One sample of the Prometheus text exposition: name and labels as written, value parsed. */
type Samples = Map<string, number>;

/** Parses the exposition into `name{a="x",b="y"}` (labels sorted) -> value. */
function parse(text: string): Samples {
  const out: Samples = new Map();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not an exposition line: ${line}`);
    const labels = [...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)]
      .map(([, k, v]) => `${k}="${v}"`)
      .sort();
    out.set(`${m[1]}{${labels.join(',')}}`, Number(m[3]));
  }
  return out;
}

const key = (name: string, labels: Record<string, string> = {}) =>
  `${name}{${Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .sort()
    .join(',')}}`;

async function scrape(): Promise<Samples> {
  const res = await t.app.inject({
    method: 'GET',
    url: '/metrics',
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  return parse(res.body);
}

/** How much each sample moved between two scrapes (absent counts as 0). */
const moved = (before: Samples, after: Samples, k: string) =>
  (after.get(k) ?? 0) - (before.get(k) ?? 0);

let later = 0;
/** A scrape that reads the database again (its reading is cached a few seconds of the clock). */
async function scrapeFresh(): Promise<Samples> {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(Date.now() + (later += 60_000));
  try {
    return await scrape();
  } finally {
    vi.useRealTimers();
  }
}

const ACQUIRE = '/api/v1/items/:uuid/acquire';

describe('GET /metrics', () => {
  it('answers 401 unauthorized without the bearer token or with another one', async () => {
    const none = await t.app.inject({ method: 'GET', url: '/metrics' });
    expect(none.statusCode).toBe(401);
    expect(none.json().error).toBe('unauthorized');
    expect(none.headers['www-authenticate']).toMatch(/^Bearer/);
    const wrong = await t.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `Bearer ${TOKEN.slice(0, -1)}x` },
    });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.body).not.toContain('marketplace_');
  });

  it('also answers the operator token the console printed', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `Bearer ${t.runtime.deps.adminToken}` },
    });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('marketplace_payments_total');
  });

  it('counts a purchase: its HTTP requests by route and status, and the payment outcome', async () => {
    const item = await createSaleItem(t.runtime.deps, { priceUsdc: 0.5 });
    const url = `/api/v1/items/${item.itemId}/acquire`;
    const before = await scrape();
    const prompt = await t.app.inject({ method: 'POST', url });
    expect(prompt.statusCode).toBe(402);
    const required = promptOf(prompt);
    const buyer = newWallet();
    const wrongAmount = await signPayment(buyer, required, required.accepts[0]!, {
      authorization: { value: '1' },
    });
    const refused = await t.app.inject({
      method: 'POST',
      url,
      headers: { 'payment-signature': wrongAmount.header },
      payload: { policy_accepted: true, license_accepted: true },
    });
    expect(refused.json().error).toBe('payment_verification_failed');
    const { header } = await signPayment(buyer, required, required.accepts[0]!);
    const paid = await t.app.inject({
      method: 'POST',
      url,
      headers: { 'payment-signature': header },
      payload: { policy_accepted: true, license_accepted: true },
    });
    expect(paid.statusCode).toBe(200);
    const after = await scrape();

    const http = (status: string) =>
      moved(
        before,
        after,
        key('marketplace_http_requests_total', { method: 'POST', route: ACQUIRE, status }),
      );
    expect(http('402')).toBe(2); // the prompt and the refused signature
    expect(http('200')).toBe(1);
    expect(
      moved(
        before,
        after,
        key('marketplace_http_request_duration_seconds_count', {
          method: 'POST',
          route: ACQUIRE,
        }),
      ),
    ).toBe(3);
    const payments = (result: string) =>
      moved(before, after, key('marketplace_payments_total', { kind: 'purchase', result }));
    expect(payments('ok')).toBe(1);
    expect(payments('payment_verification_failed')).toBe(1);
    // the unsigned prompt is not a payment attempt
    expect(after.get(key('marketplace_payments_total', { kind: 'fee', result: 'ok' }))).toBe(
      undefined,
    );
    // the raw URL (with its item id) never becomes a label
    expect([...after.keys()].some((k) => k.includes(item.itemId))).toBe(false);
  });

  it('shows a settlement left pending: its latency, the payment outcome and the backlog', async () => {
    const item = await createSaleItem(t.runtime.deps, { priceUsdc: 0.5 });
    const url = `/api/v1/items/${item.itemId}/acquire`;
    const before = await scrapeFresh();
    expect(before.get(key('marketplace_settlements_unresolved'))).toBe(0);
    expect(before.get(key('marketplace_settlement_oldest_unresolved_age_seconds'))).toBe(0);
    const local = t.runtime.deps.facilitator as LocalFacilitator;
    local.injectFault({ op: 'settle', outcome: 'pending' });
    const required = promptOf(await t.app.inject({ method: 'POST', url }));
    const { header } = await signPayment(newWallet(), required, required.accepts[0]!);
    const res = await t.app.inject({
      method: 'POST',
      url,
      headers: { 'payment-signature': header },
      payload: { policy_accepted: true, license_accepted: true },
    });
    expect(res.json().error).toBe('payment_settlement_pending');
    const after = await scrapeFresh();
    expect(
      moved(
        before,
        after,
        key('marketplace_payments_total', {
          kind: 'purchase',
          result: 'payment_settlement_pending',
        }),
      ),
    ).toBe(1);
    expect(
      moved(
        before,
        after,
        key('marketplace_settlement_duration_seconds_count', {
          network: 'eip155:8453',
          result: 'pending',
        }),
      ),
    ).toBe(1);
    expect(after.get(key('marketplace_settlements_unresolved'))).toBe(1);
    expect(after.get(key('marketplace_settlement_oldest_unresolved_age_seconds'))).toBeGreaterThan(
      0,
    );
    // resolved again so that other tests see no backlog
    await t.runtime.deps.sql`update x402_payments set status = 'released' where status = 'pending'`;
  });

  it('counts a listing fee, the queued scan job and the scan outcome', async () => {
    const before = await scrapeFresh();
    const seller = newWallet();
    await listItem(t, seller, { bytes: zipOf(uniqueProject()) });
    const queued = await scrapeFresh();
    expect(queued.get(key('marketplace_jobs', { kind: 'scan', state: 'queued' }))).toBe(1);
    expect(await t.work()).toBe(1);
    const after = await scrapeFresh();
    expect(
      moved(before, after, key('marketplace_payments_total', { kind: 'fee', result: 'ok' })),
    ).toBe(1);
    expect(moved(before, after, key('marketplace_scans_total', { outcome: 'approved' }))).toBe(1);
    expect(
      moved(before, after, key('marketplace_scan_duration_seconds_count', { outcome: 'approved' })),
    ).toBe(1);
    expect(after.get(key('marketplace_jobs', { kind: 'scan', state: 'queued' }))).toBe(undefined);
    // the listing is searchable, and the search is timed
    const search = await t.app.inject({ method: 'GET', url: '/api/v1/search?q=todo' });
    expect(search.statusCode).toBe(200);
    const searched = await scrape();
    const count = (results: string) =>
      moved(after, searched, key('marketplace_search_duration_seconds_count', { results }));
    expect(count('some') + count('none')).toBe(1);
  });

  it('counts a request to no route as unmatched, never by its path', async () => {
    const before = await scrape();
    const res = await t.app.inject({ method: 'GET', url: '/no/such/place-1234' });
    expect(res.statusCode).toBe(404);
    const after = await scrape();
    expect(
      moved(
        before,
        after,
        key('marketplace_http_requests_total', {
          method: 'GET',
          route: 'unmatched',
          status: '404',
        }),
      ),
    ).toBe(1);
    expect([...after.keys()].some((k) => k.includes('place-1234'))).toBe(false);
  });

  it('counts identity proofs by result', async () => {
    const before = await scrape();
    const wallet = newWallet();
    const first = await t.app.inject({ method: 'GET', url: '/api/v1/agent/username' });
    expect(first.statusCode).toBe(402);
    const prompt = promptOf(first);
    const forged = await signPayment(wallet, prompt, prompt.accepts[0]!, {
      signer: newWallet(),
    });
    const refused = await t.app.inject({
      method: 'GET',
      url: '/api/v1/agent/username',
      headers: { 'payment-signature': forged.header },
    });
    expect(refused.statusCode).toBe(402);
    const after = await scrape();
    const refusedCode = String(refused.json().error);
    expect(
      moved(
        before,
        after,
        key('marketplace_payments_total', { kind: 'identity', result: refusedCode }),
      ),
    ).toBe(1);
  });

  it('counts a proof of a wallet without an account as agent_not_found, and a replayed authorization as authorization_already_used', async () => {
    const before = await scrape();
    const ask = promptOf(await t.app.inject({ url: '/api/v1/agent/username' }));
    const proof = await signPayment(newWallet(), ask, ask.accepts[0]!);
    const unknown = await t.app.inject({
      url: '/api/v1/agent/username',
      headers: { 'payment-signature': proof.header },
    });
    expect(unknown.json().error).toBe('agent_not_found');
    const [bought, other] = [
      await createSaleItem(t.runtime.deps),
      await createSaleItem(t.runtime.deps),
    ];
    const acquire = (itemId: string, signature: string) =>
      t.app.inject({
        method: 'POST',
        url: `/api/v1/items/${itemId}/acquire`,
        payload: { policy_accepted: true, license_accepted: true },
        headers: { 'payment-signature': signature },
      });
    const prompt = promptOf(
      await t.app.inject({ method: 'POST', url: `/api/v1/items/${bought.itemId}/acquire` }),
    );
    const { header } = await signPayment(newWallet(), prompt, prompt.accepts[0]!);
    expect((await acquire(bought.itemId, header)).statusCode).toBe(200);
    expect((await acquire(other.itemId, header)).statusCode).toBe(409);
    const after = await scrape();
    const count = (kind: string, result: string) =>
      moved(before, after, key('marketplace_payments_total', { kind, result }));
    expect(count('identity', 'agent_not_found')).toBe(1);
    expect(count('identity', 'ok')).toBe(0);
    expect(count('purchase', 'authorization_already_used')).toBe(1);
  });

  it('serves the same registry on the separate listener, with process and event-loop metrics', async () => {
    const metrics = t.runtime.deps.telemetry;
    metrics.collectProcessMetrics();
    const listener = await startMetricsServer(
      { METRICS_PORT: 0, METRICS_HOST: '127.0.0.1', METRICS_TOKEN: TOKEN },
      metrics,
    );
    try {
      const { port } = listener.server.address() as { port: number };
      const base = `http://127.0.0.1:${port}`;
      expect((await fetch(`${base}/metrics`)).status).toBe(401);
      expect((await fetch(`${base}/other`)).status).toBe(404);
      const res = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(res.status).toBe(200);
      const samples = parse(await res.text());
      expect(samples.has(key('nodejs_eventloop_lag_p99_seconds'))).toBe(true);
      expect(samples.has(key('process_cpu_seconds_total'))).toBe(true);
      expect([...samples.keys()].some((k) => k.startsWith('marketplace_http_requests_total'))).toBe(
        true,
      );
    } finally {
      await listener.close();
    }
  });
});
