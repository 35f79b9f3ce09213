import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buy, callAs } from '../helpers/accounts.js';
import { startListeningTestApp, type ListeningTestContext } from '../helpers/app.js';
import { TEST_ADMIN_TOKEN } from '../helpers/console.js';
import { startFakeFacilitator, type FakeFacilitator } from '../helpers/fake-facilitator.js';
import { startFakeRpc, type FakeRpc } from '../helpers/fake-rpc.js';
import { createSaleItem } from '../helpers/items.js';
import { newWallet, promptOf, signPayment } from '../helpers/wallets.js';

/**
 * The operator console and the public catalogue as a person uses them: Debian's `chromium`
 * (headless) driven by playwright-core, which downloads no browser. Screenshots of every page go
 * to test-artifacts/console/ (docs/console.md shows copies). Without the browser the file is
 * skipped with a message, except in CI (CI=true), where a missing browser fails the run.
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const HAVE_BROWSER = existsSync(CHROMIUM);
const SHOTS = path.resolve('test-artifacts/console');
if (!HAVE_BROWSER && process.env.CI !== 'true') {
  console.warn(
    `console browser tests skipped: no browser at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`,
  );
}

describe.runIf(HAVE_BROWSER || process.env.CI === 'true')('operator console in a browser', () => {
  let t: ListeningTestContext;
  let fake: FakeFacilitator;
  let rpc: FakeRpc;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    if (!HAVE_BROWSER) throw new Error(`CI=true but no browser at ${CHROMIUM}: install chromium`);
    await mkdir(SHOTS, { recursive: true });
    fake = await startFakeFacilitator();
    rpc = await startFakeRpc();
    t = await startListeningTestApp({
      ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      FACILITATOR_URL: fake.url,
      FACILITATOR_TIMEOUT_MS: '3000',
      RPC_URL_BASE: rpc.url,
      RPC_URL_POLYGON: rpc.url,
    });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      // root in containers and CI: Chromium's own sandbox needs user namespaces it may not have
      args: ['--no-sandbox', '--disable-dev-shm-usage'],
    });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await fake?.close();
    await rpc?.close();
  });

  const shot = (name: string) =>
    page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });

  it('signs in, approves a review that the seller then reads through the API', async () => {
    const seller = newWallet();
    const buyer = newWallet();
    const item = await createSaleItem(t.runtime.deps, {
      sellerAddress: seller.address.toLowerCase(),
      title: 'Rate limiter middleware',
      priceUsdc: 3,
    });
    await buy(t, buyer, item.itemId);
    const given = await callAs(t, buyer, 'POST', `/api/v1/items/${item.itemId}/feedback`, {
      rating: 9,
      text: 'Drop-in and well tested; the Redis script is neat.',
    });
    const feedbackId = given.json().feedback_id as string;

    const first = await page.goto(`${t.base}/admin`);
    expect(first!.status()).toBe(401);
    await shot('sign-in');
    await page.fill('#token', 'not the token');
    await page.click('button[type=submit]');
    await expect.poll(() => page.textContent('.problem')).toContain('not the operator token');
    await page.fill('#token', TEST_ADMIN_TOKEN);
    await page.click('button[type=submit]');
    await page.waitForURL(`${t.base}/admin`);
    expect(await page.textContent('h1')).toBe('Overview');
    await shot('overview');

    await page.click('nav >> text=Moderation');
    await page.waitForURL(`${t.base}/admin/moderation`);
    expect(await page.textContent('main')).toContain('the Redis script is neat');
    await shot('moderation');
    await page.check(`#f-${feedbackId}`);
    await page.click('button[value=approve]');
    await page.waitForURL(/\/admin\/moderation\?approved=1/);
    expect(await page.textContent('.notice')).toContain('1 approved');
    expect(await page.textContent('main')).toContain('The queue is empty');

    const inbox = (await callAs(t, seller, 'GET', '/api/v1/inbox')).json();
    expect(inbox.items).toEqual([
      expect.objectContaining({
        feedback_id: feedbackId,
        rating: 9,
        text: 'Drop-in and well tested; the Redis script is neat.',
      }),
    ]);
  });

  it('takes a listing down and it vanishes from search', async () => {
    const item = await createSaleItem(t.runtime.deps, {
      title: 'Quaternion spline interpolator',
      priceUsdc: 4,
    });
    const search = async () =>
      (
        await t.app.inject({ url: '/api/v1/search?q=quaternion%20spline%20interpolator' })
      ).json() as { id: string }[];
    expect((await search()).map((r) => r.id)).toContain(item.itemId);

    await page.goto(`${t.base}/admin/listings?q=quaternion`);
    await shot('listings');
    await page.click('text=Quaternion spline interpolator');
    await page.waitForURL(`${t.base}/admin/listings/${item.itemId}`);
    await shot('listing');
    await page.fill('#reason', 'reported as a copy of a licensed library');
    await page.click('button:has-text("Take down")');
    await page.waitForURL(/done=taken_down/);
    expect(await page.textContent('.facts')).toContain('deleted');

    expect((await search()).map((r) => r.id)).not.toContain(item.itemId);
    await page.goto(`${t.base}/admin/audit`);
    expect(await page.textContent('main')).toContain('reported as a copy of a licensed library');
    await shot('audit');
  });

  it('shows a stuck settlement and reconciles it', async () => {
    const item = await createSaleItem(t.runtime.deps, { title: 'Stuck purchase', priceUsdc: 2 });
    const url = `/api/v1/items/${item.itemId}/acquire`;
    const required = promptOf(await t.app.inject({ method: 'POST', url }));
    const buyer = newWallet();
    const signed = await signPayment(buyer, required, required.accepts[0]!);
    fake.mode = 'settle_pending';
    const res = await t.app.inject({
      method: 'POST',
      url,
      headers: { 'payment-signature': signed.header },
      payload: { policy_accepted: true, license_accepted: true },
    });
    expect(res.json()).toMatchObject({ error: 'payment_settlement_pending' });
    fake.mode = 'ok';

    await page.goto(`${t.base}/admin/payments`);
    const row = page.locator('tr.settlement', { hasText: buyer.address.toLowerCase() });
    expect(await row.count()).toBe(1);
    expect(await row.textContent()).toContain('pending');
    await shot('payments');

    // the chain now records the authorization as used: the reconciler completes the order
    rpc.usedAuthorizations.add(`${buyer.address.toLowerCase()}:${signed.nonce}`);
    await page.click('button:has-text("Reconcile now")');
    await page.waitForURL(/\/admin\/payments\?completed=/);
    expect(await page.textContent('.notice')).toMatch(/Reconciled: [1-9]\d* completed/);
    expect(
      await page.locator('tr.settlement', { hasText: buyer.address.toLowerCase() }).count(),
    ).toBe(0);
    await shot('payments-reconciled');
  });

  it('shows the public catalogue and an item page without a credential', async () => {
    const item = await createSaleItem(t.runtime.deps, {
      title: 'Markdown static blog generator',
      priceUsdc: 1.5,
    });
    const fresh = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    try {
      await fresh.goto(`${t.base}/`);
      expect(await fresh.textContent('main')).toContain('Markdown static blog generator');
      await fresh.fill('input[name=q]', 'markdown blog generator');
      await fresh.click('button:has-text("Search")');
      await fresh.waitForURL(/\?q=markdown/);
      await fresh.screenshot({ path: path.join(SHOTS, 'catalogue.png'), fullPage: true });
      await fresh.click('text=Markdown static blog generator');
      await fresh.waitForURL(`${t.base}/items/${item.itemId}`);
      const text = await fresh.textContent('main');
      expect(text).toContain('1.5 USDC');
      expect(text).toContain(`/api/v1/items/${item.itemId}/acquire`);
      expect(text).toContain('"mcpServers"');
      await fresh.screenshot({ path: path.join(SHOTS, 'catalogue-item.png'), fullPage: true });
    } finally {
      await fresh.close();
    }
  });
});
