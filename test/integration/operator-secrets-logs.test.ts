import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestContext } from '../helpers/app.js';
import { buy, callAs } from '../helpers/accounts.js';
import { cookieHeader, post, signIn, TEST_ADMIN_TOKEN } from '../helpers/console.js';
import { createSaleItem } from '../helpers/items.js';
import { captureLogs, type CapturedLogs } from '../helpers/logs.js';
import { newWallet } from '../helpers/wallets.js';

/**
 * The operator plane as a leak surface: a buyer's review text is shown to the operator who judges
 * it (the moderation queue and the operator API's list) and to nobody else, on no other console
 * page, and never in a log line; the operator token, session and CSRF token never in a log line.
 */
let t: TestContext;
let logs: CapturedLogs;
beforeAll(async () => {
  logs = captureLogs();
  t = await startTestApp({ ADMIN_TOKEN: TEST_ADMIN_TOKEN }, { logger: logs.logger });
});
afterAll(() => t?.close());

describe('review text and operator secrets', () => {
  it('appear only where the operator judges the review, never in other pages, API lists or logs', async () => {
    const seller = newWallet();
    const buyer = newWallet();
    const item = await createSaleItem(t.runtime.deps, {
      sellerAddress: seller.address.toLowerCase(),
      title: 'Logged widget',
    });
    await buy(t, buyer, item.itemId);
    const text = `private review ${crypto.randomUUID()}`;
    const given = await callAs(t, buyer, 'POST', `/api/v1/items/${item.itemId}/feedback`, {
      rating: 3,
      text,
    });
    expect(given.json()).toMatchObject({ moderation_status: 'pending' });
    const feedbackId = given.json().feedback_id as string;

    const { jar, csrf } = await signIn(t.app);
    const cookie = cookieHeader(jar);
    const view = (url: string) => t.app.inject({ url, headers: { cookie } });
    // where the operator judges it: the queue and the API's list
    expect((await view('/admin/moderation')).body).toContain(text);
    const bearer = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
    const listed = await t.app.inject({ url: '/admin/api/moderation', headers: bearer });
    expect(listed.body).toContain(text);
    // every other console page, and the unresolved-payments list: no review text
    for (const url of [
      '/admin',
      '/admin/listings',
      `/admin/listings/${item.itemId}`,
      '/admin/payments',
      '/admin/audit',
    ]) {
      const page = await view(url);
      expect(page.statusCode, url).toBe(200);
      expect(page.body, url).not.toContain(text);
    }
    const unresolved = await t.app.inject({
      url: '/admin/api/payments/unresolved?older_than_seconds=0',
      headers: bearer,
    });
    expect(unresolved.statusCode).toBe(200);
    expect(unresolved.body).not.toContain(text);
    // judged: the audit page names the row, never its text
    const judged = await post(t.app, '/admin/moderation', jar, {
      verdict: 'approve',
      ids: feedbackId,
      _csrf: csrf,
    });
    expect(judged.statusCode).toBe(303);
    const audit = await view('/admin/audit');
    expect(audit.body).toContain(feedbackId);
    expect(audit.body).not.toContain(text);
    // the seller reads it in its inbox (the one place it is for)
    const inbox = await callAs(t, seller, 'GET', '/api/v1/inbox?peek=true');
    expect(inbox.body).toContain(text);
    await post(t.app, '/admin/logout', jar, { _csrf: csrf });

    const logged = logs.lines.map((l) => JSON.stringify(l)).join('\n');
    expect(logs.lines.length).toBeGreaterThan(10);
    for (const secret of [text, TEST_ADMIN_TOKEN, csrf, ...Object.values(jar)]) {
      expect(logged).not.toContain(secret);
    }
  });
});
