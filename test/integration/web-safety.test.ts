import MarkdownIt from 'markdown-it';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueProject, zipOf } from '../helpers/archives.js';
import { startTestApp, type TestContext } from '../helpers/app.js';
import { createSaleItem } from '../helpers/items.js';
import { startSellingApp, upload, type SellingContext } from '../helpers/selling.js';
import { clientFor, newWallet } from '../helpers/wallets.js';

/** Seller text in rendered invoices, and the browser safety headers of the HTML pages. */

const HOSTILE_TITLE =
  '<script>alert(1)</script> [x](javascript:alert(1)) ![i](javascript:alert(2)) <javascript:alert(3)> <img src=x onerror=alert(4)>';

/** The most permissive common renderer: raw HTML allowed, bare URLs linked. */
const markdown = new MarkdownIt({ html: true, linkify: true });

function expectInert(renderedHtml: string) {
  expect(renderedHtml).not.toMatch(/<script/i);
  expect(renderedHtml).not.toMatch(/<img/i);
  // links only to our own http(s) URLs (the legal documents), none the seller wrote
  expect(renderedHtml).not.toMatch(/href="(?!https?:)/i);
  expect(renderedHtml).not.toMatch(/<a [^>]*>[^<]*(javascript|alert)/i);
}

describe('invoices escape seller text', () => {
  let t: SellingContext;
  beforeAll(async () => {
    t = await startSellingApp();
  });
  afterAll(() => t.close());

  it('an order invoice renders a hostile title as text in Markdown and HTML', async () => {
    const item = await createSaleItem(t.runtime.deps, { title: HOSTILE_TITLE });
    const { order } = await clientFor(t.app, newWallet()).acquire(item.itemId);
    const url = new URL(order.invoice_url).pathname + new URL(order.invoice_url).search;
    const md = await t.app.inject({ url, headers: { accept: 'text/markdown' } });
    expect(md.statusCode).toBe(200);
    expect(md.body).not.toContain('<script>');
    expectInert(markdown.render(md.body));
    // the text itself survives: a reader sees the title the seller wrote
    expect(markdown.render(md.body)).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    const html = await t.app.inject({ url, headers: { accept: 'text/html' } });
    expectInert(html.body);
    expect(html.body).toContain('&lt;script&gt;');
  });

  it('a listing-fee invoice renders a hostile title as text in Markdown and HTML', async () => {
    const { paid } = await upload(t, newWallet(), {
      bytes: zipOf(uniqueProject()),
      metadata: {
        title: HOSTILE_TITLE,
        description: 'd',
        tech_stack: 'TypeScript',
        prices: { USDC: 1 },
      },
    });
    expect(paid.statusCode).toBe(202);
    const link = new URL((paid.json() as { invoice_url: string }).invoice_url);
    const url = link.pathname + link.search;
    const md = await t.app.inject({ url, headers: { accept: 'text/markdown' } });
    expect(md.statusCode).toBe(200);
    expectInert(markdown.render(md.body));
    const html = await t.app.inject({ url, headers: { accept: 'text/html' } });
    expectInert(html.body);
  });
});

describe('safety headers', () => {
  let t: SellingContext;
  beforeAll(async () => {
    t = await startSellingApp();
  });
  afterAll(() => t.close());

  const expectSafetyHeaders = (headers: Record<string, unknown>) => {
    const csp = String(headers['content-security-policy']);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('script-src');
    expect(headers['x-content-type-options']).toBe('nosniff');
    expect(headers['x-frame-options']).toBe('DENY');
    expect(headers['referrer-policy']).toBe('no-referrer');
  };

  it('HTML pages: invoices, terms, licence and the base URL', async () => {
    const item = await createSaleItem(t.runtime.deps);
    const { order } = await clientFor(t.app, newWallet()).acquire(item.itemId);
    const invoice = new URL(order.invoice_url);
    for (const url of [
      invoice.pathname + invoice.search,
      '/terms/v1',
      '/license/v1',
      '/',
      '/agent-usage',
    ]) {
      const res = await t.app.inject({ url, headers: { accept: 'text/html' } });
      expect(res.statusCode, url).toBe(200);
      expectSafetyHeaders(res.headers);
    }
  });

  it('JSON answers stay readable cross-origin for x402 clients', async () => {
    const item = await createSaleItem(t.runtime.deps);
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/v1/items/${item.itemId}/acquire`,
      headers: { origin: 'https://agent.example' },
    });
    expect(res.statusCode).toBe(402);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(String(res.headers['access-control-expose-headers'])).toContain('PAYMENT-REQUIRED');
    expect(res.headers['cross-origin-resource-policy']).toBe('cross-origin');
  });
});

describe('Strict-Transport-Security', () => {
  let plain: TestContext;
  let tls: TestContext;
  beforeAll(async () => {
    plain = await startTestApp({ PUBLIC_BASE_URL: 'http://marketplace.test' });
    tls = await startTestApp({ PUBLIC_BASE_URL: 'https://marketplace.test' });
  });
  afterAll(async () => {
    await plain.close();
    await tls.close();
  });
  const HSTS = 'max-age=31536000; includeSubDomains';

  it('is not sent when the service is served over plain http', async () => {
    for (const url of ['/', '/api/v1/search?q=todo', '/api/v1/health']) {
      const res = await plain.app.inject({ url });
      expect(res.headers['strict-transport-security'], url).toBeUndefined();
      expect(res.headers['x-content-type-options'], url).toBe('nosniff');
    }
  });

  it('is sent when the public URL is https, or the request came over https through the proxy', async () => {
    for (const url of ['/', '/api/v1/search?q=todo']) {
      expect((await tls.app.inject({ url })).headers['strict-transport-security'], url).toBe(HSTS);
      const proxied = await plain.app.inject({ url, headers: { 'x-forwarded-proto': 'https' } });
      expect(proxied.headers['strict-transport-security'], url).toBe(HSTS);
    }
  });

  it('is not sent when a client reaching the service directly from a public address claims https', async () => {
    const res = await plain.app.inject({
      url: '/',
      remoteAddress: '198.51.100.20',
      headers: { 'x-forwarded-proto': 'https' },
    });
    expect(res.headers['strict-transport-security']).toBeUndefined();
  });
});
