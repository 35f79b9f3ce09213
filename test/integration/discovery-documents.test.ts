import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { getWarningsFor402Body } from '@agentcash/discovery';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CATALOG, type ErrorCode } from '../../src/errors.js';
import { startListeningTestApp, type ListeningTestContext } from '../helpers/app.js';
import { createSaleItem } from '../helpers/items.js';
import { registerAgent } from '../helpers/revision-a.js';

/**
 * What an indexer or an agent's discovery client sees before it calls anything: OpenAPI (valid
 * 3.1, paid operations marked, credentials declared, every error code with its status), the x402
 * discovery document, llms.txt, the icon, and the ecosystem's own checker on the running service.
 */

type Schema = {
  anyOf?: Schema[];
  $ref?: string;
  properties?: { error?: { enum?: string[] } };
};
type Op = {
  security?: Array<Record<string, string[]>>;
  'x-auth'?: string;
  'x-payment-info'?: { price: Record<string, string>; protocols: unknown[] };
  responses: Record<string, { description?: string; content?: Record<string, { schema: Schema }> }>;
};
const opsOf = (doc: { paths: Record<string, Record<string, Op>> }) =>
  Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, op })),
  );

/** The codes an operation documents, per status. */
function documentedCodes(op: Op): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [status, r] of Object.entries(op.responses)) {
    const schema = r.content?.['application/json']?.schema;
    const variants = schema?.anyOf ?? [schema];
    for (const v of variants) {
      const codes = v?.properties?.error?.enum as string[] | undefined;
      if (codes) out.set(status, [...(out.get(status) ?? []), ...codes]);
    }
  }
  return out;
}

describe.each(['B', 'A'] as const)('Revision %s OpenAPI', (revision) => {
  let t: ListeningTestContext;
  let doc: { paths: Record<string, Record<string, Op>>; info: Record<string, unknown> } & Record<
    string,
    unknown
  >;
  beforeAll(async () => {
    t = await startListeningTestApp({ CONTRACT_REVISION: revision });
    doc = (await fetch(`${t.base}/openapi.json`).then((r) => r.json())) as typeof doc;
  });
  afterAll(() => t.close());

  it('is a valid OpenAPI 3.1 document, also at /.well-known/openapi.json', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc));
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    const wellKnown = await fetch(`${t.base}/.well-known/openapi.json`).then((r) => r.json());
    expect(wellKnown).toEqual(doc);
    expect(String(doc.info['x-guidance'])).toMatch(/acquire/);
    expect(String(doc.info['x-guidance']).length).toBeLessThan(4000);
  });

  it('marks every paid operation with x-payment-info and a 402 PaymentRequired answer', () => {
    const paid = opsOf(doc).filter(({ op }) => op['x-payment-info']);
    const expected =
      revision === 'B'
        ? ['POST /api/v1/items', 'POST /api/v1/items/{uuid}/acquire']
        : ['POST /api/v1/buy', 'POST /api/v1/items/{uuid}/acquire'];
    expect(paid.map((p) => p.key).sort()).toEqual(expected);
    for (const { key, op } of paid) {
      expect(op['x-payment-info']!.protocols, key).toEqual([{ x402: {} }]);
      expect(op['x-payment-info']!.price.currency, key).toBe('USD');
      const schema = op.responses['402']!.content!['application/json']!.schema;
      expect(schema.anyOf?.[0], key).toEqual({ $ref: '#/components/schemas/PaymentRequired' });
    }
    const fee = paid.find((p) => p.key === 'POST /api/v1/items');
    if (fee)
      expect(fee.op['x-payment-info']!.price).toMatchObject({ mode: 'fixed', amount: '0.01' });
    const acquire = paid.find((p) => p.key === 'POST /api/v1/items/{uuid}/acquire')!;
    expect(acquire.op['x-payment-info']!.price).toEqual({
      mode: 'dynamic',
      currency: 'USD',
      min: '0.1',
      max: '100',
    });
  });

  it('declares each operation’s credential: siwx and the zero-value proof on identity routes, none on free ones', () => {
    const schemes = (doc.components as { securitySchemes: Record<string, unknown> })
      .securitySchemes;
    for (const { key, op } of opsOf(doc)) {
      const auth = op['x-auth'];
      if (auth === 'id402') expect(op.security, key).toEqual([{ siwx: [] }, { x402Identity: [] }]);
      else if (auth === 'key') expect(op.security, key).toEqual([{ apiKey: [] }]);
      else expect(op.security, key).toEqual([]);
      for (const req of op.security!)
        for (const name of Object.keys(req)) expect(schemes).toHaveProperty(name);
    }
    if (revision === 'B') {
      expect(opsOf(doc).filter(({ op }) => op['x-auth'] === 'id402').length).toBeGreaterThan(10);
    }
  });

  it('documents every error code an operation answers, with the catalog status', () => {
    for (const { key, op } of opsOf(doc)) {
      const documented = documentedCodes(op);
      expect(documented.get('429'), key).toContain('rate_limited');
      for (const [status, codes] of documented) {
        for (const c of codes)
          expect(ERROR_CATALOG[c as ErrorCode]?.[0], `${key} ${c}`).toBe(Number(status));
      }
    }
    const codes = (k: string) =>
      [...documentedCodes(opsOf(doc).find((o) => o.key === k)!.op).values()].flat();
    // from the request schemas (zod error options), the credential and the route's own list
    expect(codes('GET /api/v1/search')).toEqual(
      expect.arrayContaining(['missing_query', 'query_too_long', 'invalid_price_range']),
    );
    expect(codes('POST /api/v1/items/{uuid}/acquire')).toEqual(
      expect.arrayContaining([
        'invalid_item_id',
        'item_not_found',
        'payment_required',
        'payment_verification_failed',
        'policy_acceptance_required',
      ]),
    );
    if (revision === 'B') {
      expect(codes('GET /api/v1/inbox')).toEqual(
        expect.arrayContaining(['invalid_limit', 'agent_not_found', 'payment_required']),
      );
      // platform feedback takes any wallet: never agent_not_found
      expect(codes('POST /api/v1/feedback/platform')).not.toContain('agent_not_found');
    } else {
      expect(codes('POST /api/v1/buy')).toEqual(
        expect.arrayContaining(['unauthorized', 'payment_required', 'item_not_found']),
      );
    }
  });

  it('/.well-known/x402 lists the acquire URL of every active listing, /llms.txt maps the service, the manifest links them', async () => {
    const seller = revision === 'A' ? (await registerAgent(t.app)).wallet.address : undefined;
    const item = await createSaleItem(t.runtime.deps, seller ? { sellerAddress: seller } : {});
    await t.runtime.deps.sql`update items set status = 'deleted' where id = ${
      (await createSaleItem(t.runtime.deps, seller ? { sellerAddress: seller } : {})).itemId
    }`;
    const res = await fetch(`${t.base}/.well-known/x402`);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    const wk = (await res.json()) as { version: number; resources: string[]; instructions: string };
    expect(wk.version).toBe(1);
    expect(wk.resources).toContain(`${t.base}/api/v1/items/${item.itemId}/acquire`);
    expect(wk.resources.filter((r) => r.endsWith('/acquire'))).toHaveLength(1);
    expect(wk.resources.includes(`${t.base}/api/v1/items`)).toBe(revision === 'B');
    expect(wk.instructions).toContain(`${t.base}/api/v1/search?q=`);

    const llms = await fetch(`${t.base}/llms.txt`);
    expect(llms.headers.get('content-type')).toMatch(/text\/markdown/);
    const text = await llms.text();
    expect(text).toMatch(/^# Code artifact marketplace\n/);
    for (const link of ['/agent-usage', '/openapi.json', '/api/v1/skills', '/.well-known/x402']) {
      expect(text).toContain(`(${t.base}${link})`);
    }
    // the stdio server's command is one npx can run: the published package's own name
    const pkg = JSON.parse(
      readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
    ) as {
      name: string;
    };
    expect(text).toContain(`\`npx -y ${pkg.name}\` (stdio)`);
    const skills = (await fetch(`${t.base}/api/v1/skills`).then((r) => r.json())) as {
      discovery: Record<string, string>;
    };
    expect(skills.discovery).toEqual({
      well_known_x402_url: `${t.base}/.well-known/x402`,
      well_known_openapi_url: `${t.base}/.well-known/openapi.json`,
      llms_txt_url: `${t.base}/llms.txt`,
      icon_url: `${t.base}/favicon.svg`,
    });
    const icon = await fetch(`${t.base}/favicon.ico`, { method: 'HEAD' });
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toBe('image/svg+xml');
  });

  it('/.well-known/x402 lists only listings a buyer can pay: each acquire URL there answers its 402 at the listing price', async () => {
    const sql = t.runtime.deps.sql;
    const sellerFor = async () =>
      revision === 'A' ? { sellerAddress: (await registerAgent(t.app)).wallet.address } : {};
    const payable = await createSaleItem(t.runtime.deps, {
      priceUsdc: 1.25,
      ...(await sellerFor()),
    });
    // its seller's payout contract is not deployed yet on any chain it sells on: acquire is a 409
    const waiting = await createSaleItem(t.runtime.deps, { priceUsdc: 2, ...(await sellerFor()) });
    await sql`update payout_addresses set deployed_at = null where agent_id = ${waiting.seller.id}`;
    const wk = (await fetch(`${t.base}/.well-known/x402`).then((r) => r.json())) as {
      resources: string[];
    };
    expect(wk.resources).toContain(`${t.base}/api/v1/items/${payable.itemId}/acquire`);
    expect(wk.resources).not.toContain(`${t.base}/api/v1/items/${waiting.itemId}/acquire`);
    for (const url of wk.resources.filter((r) => r.endsWith('/acquire'))) {
      const id = url.split('/').at(-2)!;
      const [item] = await sql<{ price: string }[]>`
        select price_micro::text as price from items where id = ${id}`;
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ policy_accepted: true, license_accepted: true }),
      });
      expect(res.status, url).toBe(402);
      const required = JSON.parse(
        Buffer.from(res.headers.get('payment-required')!, 'base64').toString(),
      ) as { accepts: Array<{ amount: string }> };
      expect(required.accepts.length).toBeGreaterThan(0);
      for (const a of required.accepts) expect(a.amount).toBe(item!.price);
    }
  });

  if (revision === 'B') {
    it('the ecosystem checker (npx @agentcash/discovery -v) sees every paid route and warns of nothing', async () => {
      const cli = fileURLToPath(
        new URL('../../node_modules/@agentcash/discovery/bin/discovery.js', import.meta.url),
      );
      const { stdout } = await promisify(execFile)(process.execPath, [cli, t.base, '-v'], {
        timeout: 60_000,
      });
      expect(stdout).toMatch(/Source:\s+openapi/);
      expect(stdout).toMatch(
        /POST\s+\/api\/v1\/items\/\{uuid\}\/acquire\s+paid\s+0\.1-100 USD\s+\[x402\]/,
      );
      expect(stdout).toMatch(/POST\s+\/api\/v1\/items\s+paid\s+0\.01 USD\s+\[x402\]/);
      expect(stdout).toMatch(/GET\s+\/api\/v1\/inbox\s+siwx/);
      expect(stdout).not.toMatch(/Warnings/);
    });

    it('its 402 checks pass on the real acquire prompt', async () => {
      const item = await createSaleItem(t.runtime.deps);
      const res = await fetch(`${t.base}/api/v1/items/${item.itemId}/acquire`, { method: 'POST' });
      expect(res.status).toBe(402);
      expect(getWarningsFor402Body(await res.json())).toEqual([]);
    });
  }
});
