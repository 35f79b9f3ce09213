import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestContext } from '../helpers/app.js';
import { buy, callAs } from '../helpers/accounts.js';
import {
  cookieHeader,
  cookiesOf,
  csrfOf,
  form,
  post,
  signIn,
  TEST_ADMIN_TOKEN,
} from '../helpers/console.js';
import { createSaleItem } from '../helpers/items.js';
import { newWallet } from '../helpers/wallets.js';

/** The operator console and API: credential, CSRF, audit, and what each action does (issue 26). */
let t: TestContext;
const FAILURE_MAX = 3;
beforeAll(async () => {
  t = await startTestApp({
    ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    RATE_LIMIT_FAILURE_MAX: String(FAILURE_MAX),
  });
});
afterAll(async () => {
  await t?.close();
});

/** A sale with a pending text review on it: the seller's wallet, the item, the feedback id. */
async function pendingReview(text = 'solid code, clear README') {
  const seller = newWallet();
  const buyer = newWallet();
  const item = await createSaleItem(t.runtime.deps, {
    sellerAddress: seller.address.toLowerCase(),
    title: 'Reviewed widget',
  });
  await buy(t, buyer, item.itemId);
  const given = await callAs(t, buyer, 'POST', `/api/v1/items/${item.itemId}/feedback`, {
    rating: 8,
    text,
  });
  expect(given.json()).toMatchObject({ moderation_status: 'pending' });
  return { seller, buyer, itemId: item.itemId, feedbackId: given.json().feedback_id as string };
}

const auditRows = () =>
  t.runtime.deps.sql<
    { actor: string; action: string; target: string | null; reason: string | null }[]
  >`
    select actor, action, target, reason from operator_audit order by id`;

describe('operator credential', () => {
  it('every console page and operator API route refuses a caller without the credential', async () => {
    const routes = t.app.routeTable.filter(
      (r) => r.url.startsWith('/admin') && r.url !== '/admin/login',
    );
    // the console's pages, its actions and the API: nothing under /admin is left out
    expect(routes.length).toBeGreaterThanOrEqual(12);
    const id = '00000000-0000-4000-8000-000000000000';
    // each refusal from its own address, so that the failure budget never answers for the gate
    let n = 0;
    for (const r of routes) {
      const url = r.url.replace(':uuid', id);
      for (const headers of [
        {},
        { cookie: 'admin_session=forged' },
        { authorization: 'Bearer not-the-token-at-all-not-the-token-at-all' },
      ]) {
        const res = await t.app.inject({
          method: r.method as 'GET' | 'POST',
          url,
          headers,
          remoteAddress: `10.1.${Math.floor(n / 250)}.${(n++ % 250) + 1}`,
          ...(r.method === 'POST' && { payload: {} }),
        });
        expect(res.statusCode, `${r.method} ${url} ${JSON.stringify(headers)}`).toBe(401);
        expect(res.body).not.toContain('Moderation queue');
      }
    }
  });

  it('signs in with the token: an HttpOnly SameSite=Strict session cookie, Secure behind TLS', async () => {
    const { res, jar } = await signIn(t.app);
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/admin');
    const cookie = [res.headers['set-cookie']].flat().find((c) => c!.startsWith('admin_session='))!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).toMatch(/Path=\/admin/);
    expect(cookie).not.toMatch(/Secure/);
    const page = await t.app.inject({ url: '/admin', headers: { cookie: cookieHeader(jar) } });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Overview');
    // pages allow no script and post only to this origin; no cross-origin reads
    expect(page.headers['content-security-policy']).toContain("form-action 'self'");
    expect(page.headers['content-security-policy']).not.toContain('script-src');
    expect(page.headers['access-control-allow-origin']).toBeUndefined();

    const login = await t.app.inject({
      url: '/admin/login',
      headers: { 'x-forwarded-proto': 'https' },
    });
    const tls = await t.app.inject({
      method: 'POST',
      url: '/admin/login',
      headers: {
        'x-forwarded-proto': 'https',
        'content-type': 'application/x-www-form-urlencoded',
        cookie: cookieHeader(cookiesOf(login)),
      },
      payload: form({ token: TEST_ADMIN_TOKEN, _csrf: csrfOf(login.body) }),
    });
    expect(tls.statusCode).toBe(303);
    expect([tls.headers['set-cookie']].flat().join('\n')).toMatch(/admin_session=[^\n]*Secure/);
    // over TLS the names carry the __Host- prefix: Secure, Path=/, no Domain
    expect(Object.keys(cookiesOf(login))).toEqual(['__Host-admin_csrf']);
    expect(Object.keys(cookiesOf(tls))).toEqual(['__Host-admin_session']);
  });

  it('over plain http (localhost) the cookies keep their plain names on Path=/admin', async () => {
    const login = await t.app.inject({ url: '/admin/login' });
    const csrf = [login.headers['set-cookie']].flat().join('\n');
    expect(csrf).toMatch(/^admin_csrf=[^;]+; Path=\/admin; HttpOnly; SameSite=Strict$/);
    const { res, jar } = await signIn(t.app);
    expect(Object.keys(jar).sort()).toEqual(['admin_csrf', 'admin_session']);
    expect(
      (await t.app.inject({ url: '/admin', headers: { cookie: cookieHeader(jar) } })).statusCode,
    ).toBe(200);
    expect(res.statusCode).toBe(303);
  });

  it('behind a TLS proxy that does not say so (PUBLIC_BASE_URL https): the cookies are Secure, as HSTS is sent', async () => {
    const tls = await startTestApp({
      ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      PUBLIC_BASE_URL: 'https://marketplace.test',
    });
    try {
      const login = await tls.app.inject({ url: '/admin/login' });
      expect(login.headers['strict-transport-security']).toBeDefined();
      const csrfCookie = [login.headers['set-cookie']].flat().join('\n');
      expect(csrfCookie).toMatch(/admin_csrf=[^\n]*Secure/);
      // __Host-: a sibling subdomain can neither set nor shadow it (Secure, Path=/, no Domain)
      expect(csrfCookie).toMatch(
        /^__Host-admin_csrf=[^;]+; Path=\/; HttpOnly; Secure; SameSite=Strict$/,
      );
      const { res, jar } = await signIn(tls.app);
      expect(res.statusCode).toBe(303);
      const session = [res.headers['set-cookie']]
        .flat()
        .find((c) => c!.startsWith('__Host-admin_session='));
      expect(session).toMatch(/Secure/);
      expect(session).toMatch(/HttpOnly/);
      expect(session).toMatch(/; Path=\/;/);
      expect(session).not.toMatch(/Domain/i);
      const page = (cookie: string) => tls.app.inject({ url: '/admin', headers: { cookie } });
      expect((await page(cookieHeader(jar))).statusCode).toBe(200);
      // the plain names are not read over TLS: a session id planted as admin_session is no session
      expect((await page(`admin_session=${jar['__Host-admin_session']}`)).statusCode).toBe(401);

      // a CSRF secret and its token that a sibling subdomain could plant (admin_csrf, any
      // Domain): the form is refused, nothing signs in
      const http = await t.app.inject({ url: '/admin/login' });
      const planted = await tls.app.inject({
        method: 'POST',
        url: '/admin/login',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          cookie: cookieHeader(cookiesOf(http)),
        },
        payload: form({ token: TEST_ADMIN_TOKEN, _csrf: csrfOf(http.body) }),
      });
      expect(Object.keys(cookiesOf(http))).toEqual(['admin_csrf']);
      expect(planted.statusCode).toBe(403);
      expect(planted.body).toContain('csrf_invalid');
      expect(String(planted.headers['set-cookie'] ?? '')).not.toMatch(/admin_session/);
    } finally {
      await tls.close();
    }
  });

  it('a wrong token is 401 and, past the failure budget, 429 for that address', async () => {
    const remoteAddress = '10.0.0.2';
    const attempt = async () => {
      const login = await t.app.inject({ url: '/admin/login', remoteAddress });
      return t.app.inject({
        method: 'POST',
        url: '/admin/login',
        remoteAddress,
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          cookie: cookieHeader(cookiesOf(login)),
        },
        payload: form({ token: 'guess', _csrf: csrfOf(login.body) }),
      });
    };
    for (let i = 0; i < FAILURE_MAX; i++) {
      const res = await attempt();
      expect(res.statusCode).toBe(401);
      expect(res.body).toContain('That is not the operator token.');
      expect(String(res.headers['set-cookie'] ?? '')).not.toMatch(/admin_session/);
    }
    const limited = await attempt();
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toBeDefined();
    // even the right token waits now: guessing stops
    expect((await signIn(t.app, TEST_ADMIN_TOKEN, remoteAddress)).res.statusCode).toBe(429);
    // the operator API counts in the same budget
    const api = await t.app.inject({
      url: '/admin/api/moderation',
      remoteAddress: '10.0.0.3',
      headers: { authorization: 'Bearer wrong' },
    });
    expect(api.statusCode).toBe(401);
    expect(api.json()).toMatchObject({ error: 'unauthorized' });
  });

  it('signing out ends the session on the server', async () => {
    const { jar, csrf } = await signIn(t.app);
    const out = await post(t.app, '/admin/logout', jar, { _csrf: csrf });
    expect(out.statusCode).toBe(303);
    const after = await t.app.inject({ url: '/admin', headers: { cookie: cookieHeader(jar) } });
    expect(after.statusCode).toBe(401);
  });
});

describe('CSRF', () => {
  it('a form without its CSRF token, or with another one, is refused and changes nothing', async () => {
    const { feedbackId } = await pendingReview();
    const { jar, csrf } = await signIn(t.app);
    const missing = await post(t.app, '/admin/moderation', jar, {
      verdict: 'approve',
      ids: feedbackId,
    });
    expect(missing.statusCode).toBe(403);
    expect(missing.body).toContain('csrf_invalid');
    const forged = await post(t.app, '/admin/moderation', jar, {
      verdict: 'approve',
      ids: feedbackId,
      _csrf: `${csrf.slice(0, -2)}xx`,
    });
    expect(forged.statusCode).toBe(403);
    // a token from another browser (its own CSRF cookie) does not fit this one
    const other = await signIn(t.app);
    const crossed = await post(t.app, '/admin/moderation', jar, {
      verdict: 'approve',
      ids: feedbackId,
      _csrf: other.csrf,
    });
    expect(crossed.statusCode).toBe(403);
    const [row] = await t.runtime.deps.sql<{ moderationStatus: string }[]>`
      select moderation_status from item_feedback where id = ${feedbackId}`;
    expect(row!.moderationStatus).toBe('pending');
    // the sign-in form is protected too (login CSRF)
    const noToken = await t.app.inject({
      method: 'POST',
      url: '/admin/login',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: form({ token: TEST_ADMIN_TOKEN }),
    });
    expect(noToken.statusCode).toBe(403);
  });
});

describe('a cross-origin console form', () => {
  it("a browser's cross-origin preflight to a console form or the operator API is granted nothing", async () => {
    for (const [url, method] of [
      ['/admin/moderation', 'POST'],
      ['/admin/listings/00000000-0000-0000-0000-000000000000/take-down', 'POST'],
      ['/admin/api/moderation', 'POST'],
      ['/admin', 'GET'],
    ] as const) {
      const res = await t.app.inject({
        method: 'OPTIONS',
        url,
        headers: {
          origin: 'https://evil.example',
          'access-control-request-method': method,
          'access-control-request-headers': 'content-type',
        },
      });
      expect(res.headers['access-control-allow-origin'], url).toBeUndefined();
      expect(res.headers['access-control-allow-methods'], url).toBeUndefined();
      expect(res.headers['access-control-allow-headers'], url).toBeUndefined();
    }
    // the API's own preflight still serves browser agents
    const api = await t.app.inject({
      method: 'OPTIONS',
      url: '/api/v1/search',
      headers: { origin: 'https://agent.example', 'access-control-request-method': 'GET' },
    });
    expect(api.headers['access-control-allow-origin']).toBe('*');
  });

  it('is refused with a valid cookie and form token when Origin or Sec-Fetch-Site names another site; the console itself and curl pass', async () => {
    const changing = t.app.routeTable.filter(
      (r) =>
        r.url.startsWith('/admin') &&
        !r.url.startsWith('/admin/api/') &&
        !['GET', 'HEAD', 'OPTIONS'].includes(r.method),
    );
    expect(changing.length).toBeGreaterThanOrEqual(5);
    const { feedbackId, item, jar, csrf, fields, unchanged } =
      await formsAtStake('a foreign page sent it');
    const foreign: Record<string, string>[] = [
      { origin: 'https://evil.example' },
      { origin: 'null', 'sec-fetch-site': 'cross-site' },
      // same host, another scheme or port is another origin
      { origin: 'https://marketplace.test' },
      { origin: 'http://marketplace.test:8080' },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
      // a same-origin Origin does not excuse a browser saying the request is cross-site
      { origin: 'http://marketplace.test', 'sec-fetch-site': 'cross-site' },
    ];
    for (const r of changing) {
      const url = r.url.replace(':uuid', item.itemId);
      for (const headers of foreign) {
        const res = await post(t.app, url, jar, { ...fields[r.url], _csrf: csrf }, headers);
        expect(res.statusCode, `${url} ${JSON.stringify(headers)}`).toBe(403);
        expect(res.body).toContain('cross_origin_refused');
      }
    }
    await unchanged();
    // the console's own pages (PUBLIC_BASE_URL's origin, or the host the request was sent to)
    const own: Record<string, string>[] = [
      { origin: 'http://marketplace.test', 'sec-fetch-site': 'same-origin' },
      { origin: 'http://localhost:80' },
      { 'sec-fetch-site': 'none' },
      // a browser's form under Referrer-Policy no-referrer: Origin null, Sec-Fetch-Site decides
      { origin: 'null', 'sec-fetch-site': 'same-origin' },
    ];
    for (const headers of own) {
      const ok = await post(
        t.app,
        '/admin/moderation',
        jar,
        { verdict: 'approve', ids: feedbackId, _csrf: csrf },
        headers,
      );
      expect(ok.statusCode, JSON.stringify(headers)).toBe(303);
    }
    // a request naming neither (curl) is left to its token
    const curl = await post(t.app, '/admin/moderation', jar, {
      verdict: 'approve',
      ids: feedbackId,
      _csrf: csrf,
    });
    expect(curl.statusCode).toBe(303);
  });
});

describe('CSRF on every state-changing console route', () => {
  it('each one from the route table, signed in but without the form token, is 403 and changes nothing; the Bearer API takes no cookie', async () => {
    const changing = t.app.routeTable.filter(
      (r) => r.url.startsWith('/admin') && !['GET', 'HEAD', 'OPTIONS'].includes(r.method),
    );
    const consoleForms = changing.filter((r) => !r.url.startsWith('/admin/api/'));
    const api = changing.filter((r) => r.url.startsWith('/admin/api/'));
    // login, logout, moderation, take-down, reconcile: a new form joins this list by itself
    expect(consoleForms.length).toBeGreaterThanOrEqual(5);
    expect(api.length).toBeGreaterThanOrEqual(1);
    const { feedbackId, item, jar, csrf, fields, unchanged } =
      await formsAtStake('no token, no verdict');
    for (const r of consoleForms) {
      const url = r.url.replace(':uuid', item.itemId);
      const body = fields[r.url] ?? {};
      for (const token of [undefined, '', other(csrf)]) {
        const res = await post(t.app, url, jar, {
          ...body,
          ...(token !== undefined && { _csrf: token }),
        });
        expect(res.statusCode, `${r.method} ${url} _csrf=${String(token)}`).toBe(403);
        expect(res.body).toContain('csrf_invalid');
      }
    }
    // nothing happened: the review is pending, the listing active, no audit row, the session alive
    await unchanged();
    const still = await t.app.inject({
      url: '/admin/moderation',
      headers: { cookie: cookieHeader(jar) },
    });
    expect(still.statusCode).toBe(200);
    // the operator API is entered with the Bearer token only: the console's cookies open nothing
    for (const r of api) {
      const res = await t.app.inject({
        method: r.method as 'POST',
        url: r.url,
        headers: { cookie: cookieHeader(jar), 'x-csrf-token': csrf },
        payload: { verdict: 'approve', ids: [feedbackId] },
      });
      expect(res.statusCode, `${r.method} ${r.url}`).toBe(401);
    }
    const [after] = await t.runtime.deps.sql<{ moderationStatus: string }[]>`
      select moderation_status from item_feedback where id = ${feedbackId}`;
    expect(after!.moderationStatus).toBe('pending');
  });
});

/**
 * What a forged console form could change: a pending review, an active listing, a signed-in
 * session with its form token and each form's fields; `unchanged` asserts that none of it moved
 * (the review pending, the listing active, no new audit row).
 */
async function formsAtStake(why: string) {
  const { feedbackId } = await pendingReview(`kept pending: ${why}`);
  const item = await createSaleItem(t.runtime.deps, { title: `Not taken down: ${why}` });
  const { jar, csrf } = await signIn(t.app);
  const fields: Record<string, Record<string, string>> = {
    '/admin/login': { token: TEST_ADMIN_TOKEN },
    '/admin/moderation': { verdict: 'approve', ids: feedbackId },
    '/admin/listings/:uuid/take-down': { reason: `forged: ${why}` },
  };
  const audits = (await auditRows()).length;
  const unchanged = async () => {
    const [fb] = await t.runtime.deps.sql<{ moderationStatus: string }[]>`
      select moderation_status from item_feedback where id = ${feedbackId}`;
    expect(fb!.moderationStatus).toBe('pending');
    const [it] = await t.runtime.deps.sql<{ status: string }[]>`
      select status from items where id = ${item.itemId}`;
    expect(it!.status).toBe('active');
    expect((await auditRows()).length).toBe(audits);
  };
  return { feedbackId, item, jar, csrf, fields, unchanged };
}

/** A well-formed token that is not `csrf` (its last characters changed). */
const other = (csrf: string) => `${csrf.slice(0, -2)}${csrf.endsWith('xx') ? 'yy' : 'xx'}`;

describe('console actions', () => {
  it('approving reviews puts them in the seller inbox at once, with an audit row each', async () => {
    const a = await pendingReview('first review text');
    const b = await pendingReview('second review text');
    const { jar, csrf } = await signIn(t.app);
    const queue = await t.app.inject({
      url: '/admin/moderation',
      headers: { cookie: cookieHeader(jar) },
    });
    expect(queue.body).toContain('first review text');
    expect(queue.body).toContain('Reviewed widget');
    const res = await post(t.app, '/admin/moderation', jar, {
      verdict: 'approve',
      ids: [a.feedbackId, b.feedbackId],
      _csrf: csrf,
    });
    expect(res.statusCode).toBe(303);
    const inbox = (await callAs(t, a.seller, 'GET', '/api/v1/inbox')).json();
    expect(inbox.items).toEqual([
      expect.objectContaining({ feedback_id: a.feedbackId, text: 'first review text' }),
    ]);
    const audit = await auditRows();
    expect(audit).toEqual(
      expect.arrayContaining([
        { actor: 'operator', action: 'feedback.approve', target: a.feedbackId, reason: null },
        { actor: 'operator', action: 'feedback.approve', target: b.feedbackId, reason: null },
      ]),
    );
    const after = await t.app.inject({
      url: res.headers.location as string,
      headers: { cookie: cookieHeader(jar) },
    });
    expect(after.body).toContain('2 approved');
    expect(after.body).not.toContain('first review text');
  });

  it('a take-down is the owner delete: gone from search and detail, reason in the audit trail', async () => {
    const item = await createSaleItem(t.runtime.deps, { title: 'Listing to remove' });
    const { jar, csrf } = await signIn(t.app);
    const detail = await t.app.inject({
      url: `/admin/listings/${item.itemId}`,
      headers: { cookie: cookieHeader(jar) },
    });
    expect(detail.statusCode).toBe(200);
    expect(detail.body).toContain('Take down');
    const res = await post(t.app, `/admin/listings/${item.itemId}/take-down`, jar, {
      reason: 'copyright complaint #42',
      _csrf: csrf,
    });
    expect(res.statusCode).toBe(303);
    const [row] = await t.runtime.deps.sql<{ status: string; statusReason: string }[]>`
      select status, status_reason from items where id = ${item.itemId}`;
    expect(row).toEqual({ status: 'deleted', statusReason: 'removed' });
    expect((await t.app.inject({ url: `/api/v1/items/${item.itemId}` })).statusCode).toBe(404);
    expect(await auditRows()).toContainEqual({
      actor: 'operator',
      action: 'listing.take_down',
      target: item.itemId,
      reason: 'copyright complaint #42',
    });
    // listed by status on the listings page
    const listed = await t.app.inject({
      url: '/admin/listings?status=deleted&q=remove',
      headers: { cookie: cookieHeader(jar) },
    });
    expect(listed.body).toContain('Listing to remove');
  });

  it('a second take-down (or one of a listing no longer listed) changes nothing, writes no audit row and says so', async () => {
    // found by the s47 sweep: the second POST answered "Taken down" again and wrote a second
    // listing.take_down row (previous_status deleted) for an action that did nothing
    const item = await createSaleItem(t.runtime.deps, { title: 'Listing taken down twice' });
    const { jar, csrf } = await signIn(t.app);
    const takeDown = (reason: string) =>
      post(t.app, `/admin/listings/${item.itemId}/take-down`, jar, { reason, _csrf: csrf });
    const rowsFor = async () =>
      (await auditRows()).filter(
        (r) => r.action === 'listing.take_down' && r.target === item.itemId,
      );
    expect((await takeDown('first')).statusCode).toBe(303);
    expect(await rowsFor()).toHaveLength(1);
    const again = await takeDown('second');
    expect(again.statusCode).toBe(303);
    expect(await rowsFor()).toEqual([expect.objectContaining({ reason: 'first' })]);
    const page = await t.app.inject({
      url: again.headers.location as string,
      headers: { cookie: cookieHeader(jar) },
    });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Nothing to take down');
    expect(page.body).not.toContain('Taken down: the listing left search');
    const [row] = await t.runtime.deps.sql<{ status: string; statusReason: string }[]>`
      select status, status_reason from items where id = ${item.itemId}`;
    expect(row).toEqual({ status: 'deleted', statusReason: 'removed' });
  });

  it('a rejected listing shows its scan findings (rule, kind, file, line), never a raw detail', async () => {
    const item = await createSaleItem(t.runtime.deps, { title: 'Leaky config loader' });
    const { sql } = t.runtime.deps;
    await sql`update items set status = 'rejected', status_reason = 'safety_checks_failed'
              where id = ${item.itemId}`;
    await sql`
      insert into scan_results (item_id, attempt, verdict, reason, findings, duration_ms)
      values (${item.itemId}, 1, 'rejected', 'safety_checks_failed',
              ${sql.json([
                { check: 'secret', detail: 'aws_access_key', file: 'src/config.js', line: 12 },
                // a detail that is not a short identifier (a message, a path) is never shown
                { check: 'processing_error', detail: 'read /srv/AKIAIOSFODNN7EXAMPLE failed' },
              ])},
              41)`;
    const { jar } = await signIn(t.app);
    const list = await t.app.inject({
      url: '/admin/listings?status=rejected',
      headers: { cookie: cookieHeader(jar) },
    });
    expect(list.body).toContain('Leaky config loader');
    const page = await t.app.inject({
      url: `/admin/listings/${item.itemId}`,
      headers: { cookie: cookieHeader(jar) },
    });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('safety_checks_failed');
    expect(page.body).toContain('<td>secret</td><td>aws_access_key</td>');
    expect(page.body).toContain('src/config.js');
    expect(page.body).toMatch(/<td class="num">12<\/td>/);
    expect(page.body).not.toContain('AKIAIOSFODNN7EXAMPLE');
    // a rejected listing is terminal: nothing to take down
    expect(page.body).not.toContain('Take down');
  });

  it('the operator API moderates with the token as Bearer and audits it', async () => {
    const { feedbackId } = await pendingReview('api review');
    const auth = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
    const list = await t.app.inject({ url: '/admin/api/moderation', headers: auth });
    expect(list.statusCode).toBe(200);
    expect(list.json().items).toContainEqual(
      expect.objectContaining({ feedback_id: feedbackId, text: 'api review' }),
    );
    const judged = await t.app.inject({
      method: 'POST',
      url: '/admin/api/moderation',
      headers: auth,
      payload: { verdict: 'reject', ids: [feedbackId] },
    });
    expect(judged.json()).toEqual({
      results: [{ feedback_id: feedbackId, moderation_status: 'rejected' }],
    });
    expect(await auditRows()).toContainEqual({
      actor: 'operator',
      action: 'feedback.reject',
      target: feedbackId,
      reason: null,
    });
    const unresolved = await t.app.inject({
      url: '/admin/api/payments/unresolved?older_than_seconds=0',
      headers: auth,
    });
    expect(unresolved.json()).toEqual({ items: [] });
    // without the age: the command's default age (RECONCILE_ALERT_AFTER_SECONDS), not a 400
    const byDefault = await t.app.inject({ url: '/admin/api/payments/unresolved', headers: auth });
    expect(byDefault.statusCode).toBe(200);
    expect(byDefault.json()).toEqual({ items: [] });
    const bad = await t.app.inject({
      url: '/admin/api/payments/unresolved?older_than_seconds=-1',
      headers: auth,
    });
    expect(bad.statusCode).toBe(400);
  });
});

describe('public catalogue', () => {
  it('GET / as HTML lists listings with escaped text; other Accept values keep the JSON index', async () => {
    await createSaleItem(t.runtime.deps, { title: 'Widget <script>alert(1)</script>' });
    const html = await t.app.inject({ url: '/', headers: { accept: 'text/html' } });
    expect(html.statusCode).toBe(200);
    expect(html.headers['content-type']).toMatch(/^text\/html/);
    expect(html.body).toContain('Widget &lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html.body).not.toContain('<script>');
    for (const accept of [undefined, '*/*', 'application/json']) {
      const res = await t.app.inject({ url: '/', headers: accept ? { accept } : {} });
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.headers.vary).toMatch(/Accept/);
      expect(Object.keys(res.json())).toEqual([
        'name',
        'description',
        'version',
        'agent_usage_url',
        'manifest_url',
        'openapi_url',
        'search_url',
        'health_url',
      ]);
    }
    const bad = await t.app.inject({
      url: '/?q=widget&min_price=abc',
      headers: { accept: 'text/html' },
    });
    expect(bad.statusCode).toBe(200);
    expect(bad.body).toContain('plain decimal USDC');
  });
});
