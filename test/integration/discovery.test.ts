import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedListing } from '../helpers/catalog.js';
import { startTestApp, type TestContext } from '../helpers/app.js';

let t: TestContext;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.close());

const toOpenApiPath = (url: string) => url.replace(/:([A-Za-z_]+)/g, '{$1}');

describe.each(['B', 'A'] as const)(
  'manifest, OpenAPI and routes agree (Revision %s)',
  (revision) => {
    let app: TestContext['app'];
    let own: TestContext | undefined;
    beforeAll(async () => {
      if (revision === 'B') app = t.app;
      else app = (own = await startTestApp({ CONTRACT_REVISION: 'A' })).app;
    });
    afterAll(() => own?.close());

    it('serves OpenAPI 3.1.0 with info.version 2.4.0', async () => {
      const res = await app.inject('/openapi.json');
      expect(res.statusCode).toBe(200);
      const doc = res.json();
      expect(doc.openapi).toBe('3.1.0');
      expect(doc.info.version).toBe('2.4.0');
      expect(
        doc.paths['/api/v1/search'].get.parameters.map((p: { name: string }) => p.name).sort(),
      ).toEqual(['license', 'max_price', 'min_price', 'q', 'tech_stack']);
      // The owner's status documents the findings of a rejected listing (issue 23).
      const status = doc.paths['/api/v1/seller/items/{uuid}/status']?.get;
      if (status) {
        const body = status.responses['200'].content['application/json'].schema;
        expect(Object.keys(body.properties)).toEqual(['status', 'reason', 'findings']);
        expect(Object.keys(body.properties.findings.items.properties)).toEqual([
          'rule',
          'kind',
          'file',
          'line',
        ]);
      }
    });

    it('lists every visible route once in both the manifest and OpenAPI, with its credential', async () => {
      const doc = (await app.inject('/openapi.json')).json();
      const skills = (await app.inject('/api/v1/skills')).json();
      const visible = app.routeTable
        .filter((r) => !r.hidden)
        .map((r) => `${r.method} ${toOpenApiPath(r.url)}`)
        .sort();
      const fromManifest = skills.endpoints
        .map((e: { method: string; path: string }) => `${e.method} ${e.path}`)
        .sort();
      const fromOpenApi = Object.entries(doc.paths as Record<string, Record<string, unknown>>)
        .flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`))
        .sort();
      expect(fromManifest).toEqual(visible);
      expect(fromOpenApi).toEqual(visible);
      for (const e of skills.endpoints) {
        expect(['public', 'id402', 'paid402', 'key']).toContain(e.auth);
        const op = doc.paths[e.path][e.method.toLowerCase()];
        expect(e.parameters.map((p: { name: string }) => p.name)).toEqual(
          (op.parameters ?? []).map((p: { name: string }) => p.name),
        );
      }
      const search = skills.endpoints.find((e: { path: string }) => e.path === '/api/v1/search');
      expect(search.auth).toBe('public');
      expect(search.parameters.find((p: { name: string }) => p.name === 'q').required).toBe(true);
    });

    it("documents this revision's routes and credentials, and only those", async () => {
      const doc = (await app.inject('/openapi.json')).json();
      const skills = (await app.inject('/api/v1/skills')).json();
      const guide = (await app.inject('/agent-usage')).body;
      const auths = new Set(skills.endpoints.map((e: { auth: string }) => e.auth));
      const routes = skills.endpoints.map(
        (e: { method: string; path: string }) => `${e.method} ${e.path}`,
      );
      const authOf = (m: string, p: string) =>
        skills.endpoints.find(
          (e: { method: string; path: string }) => e.method === m && e.path === p,
        )?.auth;
      expect(skills.contract_revision).toBe(revision);
      if (revision === 'A') {
        expect(auths.has('id402')).toBe(false);
        for (const r of [
          'POST /api/v1/auth/challenge',
          'POST /api/v1/register',
          'POST /api/v1/auth/rotate-key',
          'POST /api/v1/auth/link-wallet',
          'POST /api/v1/buy',
          'GET /api/v1/orders/{uuid}/download',
          'GET /api/v1/orders/{uuid}/invoice',
          'GET /api/v1/seller/stats',
          'GET /api/v1/seller/payouts',
          'GET /api/v1/seller/items',
          'POST /api/v1/items/{uuid}/feedback',
          'POST /api/v1/feedback/platform',
          'GET /api/v1/feedback/inbox',
          'POST /api/v1/feedback/{uuid}/ack',
        ]) {
          expect(routes).toContain(r);
        }
        expect(authOf('DELETE', '/api/v1/items/{uuid}')).toBe('key');
        expect(authOf('POST', '/api/v1/items')).toBe('key');
        expect(authOf('POST', '/api/v1/buy')).toBe('key');
        expect(authOf('POST', '/api/v1/register')).toBe('public');
        expect(
          routes.filter((r: string) => r.includes('/api/v1/agent/') || r.includes('/api/v1/inbox')),
        ).toEqual([]);
        expect(doc.components.securitySchemes.apiKey).toEqual({
          type: 'apiKey',
          in: 'header',
          name: 'x-api-key',
        });
        expect(doc.paths['/api/v1/items/{uuid}'].delete.security).toEqual([{ apiKey: [] }]);
        expect(skills.authentication).toHaveProperty('key');
        expect(skills.authentication).not.toHaveProperty('id402');
        expect(skills.payment).not.toHaveProperty('listing_fee_usdc');
        expect(guide).toContain('X-API-KEY');
        expect(guide).toContain('http://marketplace.test/api/v1/buy');
        expect(guide).not.toContain('zero-value');
      } else {
        expect(auths.has('key')).toBe(false);
        expect(routes).not.toContain('POST /api/v1/register');
        expect(routes).not.toContain('POST /api/v1/buy');
        expect(routes).not.toContain('GET /api/v1/feedback/inbox');
        // the wallet's proofs are the credential schemes (no API key)
        expect(Object.keys(doc.components?.securitySchemes ?? {})).toEqual([
          'siwx',
          'x402Identity',
        ]);
        expect(skills.authentication).not.toHaveProperty('key');
        expect(guide).not.toContain('X-API-KEY');
      }
    });

    it('manifest carries service metadata a client starts from', async () => {
      const skills = (await app.inject('/api/v1/skills')).json();
      expect(skills.version).toBe('2.4.0');
      expect(skills.base_url).toBe('http://marketplace.test');
      expect(skills.payment.chains).toEqual({ base: 'eip155:8453', polygon: 'eip155:137' });
      expect(skills.legal.policy.url).toBe('http://marketplace.test/terms/v1');
    });
  },
);

describe('documents', () => {
  it('/agent-usage is a Markdown guide covering search, buy, sell and account with absolute URLs', async () => {
    const res = await t.app.inject('/agent-usage');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/markdown/);
    for (const heading of ['## 1. Search', '## 2. Buy', '## 3. Sell', '## 4. Your account']) {
      expect(res.body).toContain(heading);
    }
    expect(res.body).toContain('http://marketplace.test/api/v1/items/{id}/acquire');
    expect(res.body).not.toContain('{base_url}');
    // Sellers learn to run the marketplace's scan before paying, and what a rejection tells them.
    expect(res.body).toContain('node dist/src/domain/scan/cli.js my-project.zip');
    expect(res.body).toContain('`findings`: `[{ rule, kind, file, line }]`');
  });

  it.each(['terms', 'license'])(
    '/%s/v1 answers Markdown by default and HTML when asked',
    async (kind) => {
      const md = await t.app.inject(`/${kind}/v1`);
      expect(md.statusCode).toBe(200);
      expect(md.headers['content-type']).toMatch(/^text\/markdown/);
      expect(md.body).toContain('VERSION: v1');
      const html = await t.app.inject({ url: `/${kind}/v1`, headers: { accept: 'text/html' } });
      expect(html.headers['content-type']).toMatch(/^text\/html/);
      expect(html.body).toMatch(/^<!doctype html>/);
      expect(html.body).toContain('VERSION: v1');
      expect(html.body).toContain(
        kind === 'terms' ? 'Marketplace Policy Terms' : 'Buyer License Terms',
      );
      expect((await t.app.inject(`/${kind}/v2`)).statusCode).toBe(404);
    },
  );
});

describe('item detail and public status', () => {
  it('shows an active item without similarity, and 404s for other states', async () => {
    const { sql, embedder } = t.runtime.deps;
    const base = {
      title: 'Detail item',
      description: 'A detailed description',
      techStack: 'Go',
      price: 1.25,
    };
    const active = await seedListing(sql, embedder, { ...base, promptSummary: 'made by a prompt' });
    const res = await t.app.inject(`/api/v1/items/${active}`);
    expect(res.statusCode).toBe(200);
    const item = res.json();
    expect(item).toMatchObject({
      id: active,
      status: 'active',
      metadata: {
        title: 'Detail item',
        tech_stack: 'Go',
        prices: { USDC: 1.25 },
        prompt_summary: 'made by a prompt',
      },
      available_chains: ['base', 'polygon'],
    });
    expect(item).not.toHaveProperty('similarity');
    expect(item).not.toHaveProperty('rating_avg');
    for (const status of ['pending_scan', 'scanning', 'rejected', 'deleted'] as const) {
      const id = await seedListing(sql, embedder, { ...base, status });
      const r = await t.app.inject(`/api/v1/items/${id}`);
      expect(r.statusCode).toBe(404);
      expect(r.json().error).toBe('item_not_found');
    }
  });

  it('public status is 404 unless active (Revision B) and shows the status record when active', async () => {
    const { sql, embedder } = t.runtime.deps;
    const base = { title: 'Status item', description: 'x', techStack: 'Go' };
    const active = await seedListing(sql, embedder, base);
    const ok = await t.app.inject(`/api/v1/items/${active}/status`);
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({ id: active, status: 'active', reason: 'approved' });
    expect(new Date(ok.json().created_at).toString()).not.toBe('Invalid Date');
    for (const status of ['pending_scan', 'scanning', 'rejected', 'deleted'] as const) {
      const id = await seedListing(sql, embedder, { ...base, status });
      expect((await t.app.inject(`/api/v1/items/${id}/status`)).statusCode).toBe(404);
    }
  });

  it('a malformed id is a 400 invalid_item_id, an unknown one a 404', async () => {
    const bad = await t.app.inject('/api/v1/items/not-a-uuid');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toBe('invalid_item_id');
    const missing = await t.app.inject('/api/v1/items/7d3f6a3e-0000-4000-8000-000000000000');
    expect(missing.statusCode).toBe(404);
  });
});

describe('documents follow the deployment configuration', () => {
  it('fee, limits and price range in the guide and the manifest come from config', async () => {
    const other = await startTestApp({
      LISTING_FEE_USDC: '0.02',
      MAX_ACTIVE_LISTINGS: '7',
      MAX_PRICE_USDC: '50',
    });
    try {
      const guide = (await other.app.inject('/agent-usage')).body;
      expect(guide).toContain('flat listing fee of 0.02 USDC (`amount: "20000"`)');
      expect(guide).toContain('(7 pending, scanning or active listings per seller)');
      expect(guide).toContain('{ "USDC": <0.1..50> }');
      const skills = (await other.app.inject('/api/v1/skills')).json();
      expect(skills.payment.listing_fee_usdc).toBe(0.02);
      expect(skills.limits).toMatchObject({
        archive_max_bytes: 10_485_760,
        price_usdc: { min: 0.1, max: 50 },
        active_listings_per_seller: 7,
      });
    } finally {
      await other.close();
    }
  });
});
