import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestContext } from '../helpers/app.js';
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

/** The console as a hostile caller tries it (review of issue 26): what must never happen. */
let t: TestContext;
beforeAll(async () => {
  t = await startTestApp({ ADMIN_TOKEN: TEST_ADMIN_TOKEN });
});
afterAll(async () => {
  await t?.close();
});

/** Signs in with the right token and the given `next`, as the sign-in form posts it. */
async function signInWithNext(next: string) {
  const login = await t.app.inject({ url: '/admin/login' });
  const jar = cookiesOf(login);
  const res = await t.app.inject({
    method: 'POST',
    url: '/admin/login',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookieHeader(jar) },
    payload: form({ token: TEST_ADMIN_TOKEN, _csrf: csrfOf(login.body), next }),
  });
  return { res, jar: cookiesOf(res, jar) };
}

describe('sign-in redirect', () => {
  it('a next with line breaks or dot segments signs in to a console page, never a 500 or elsewhere', async () => {
    for (const next of [
      '/admin/\r\nSet-Cookie: x=1',
      '/admin/\u0000',
      '/admin/é',
      '/admin/../evil',
      '/admin/%2e%2e/evil',
      '/admin\\..\\..\\evil',
      '//evil.example/admin',
      'https://evil.example/admin',
    ]) {
      const { res, jar } = await signInWithNext(next);
      expect(res.statusCode, JSON.stringify(next)).toBe(303);
      const location = String(res.headers.location);
      expect(location, JSON.stringify(next)).toMatch(/^\/admin(?:[/?#]|$)/);
      expect(new URL(location, 'http://h.invalid').pathname).toMatch(/^\/admin(?:\/|$)/);
      expect(res.headers['set-cookie']).toBeDefined();
      const page = await t.app.inject({ url: '/admin', headers: { cookie: cookieHeader(jar) } });
      expect(page.statusCode).toBe(200);
    }
    // a console page with its query is kept as asked
    const { res } = await signInWithNext('/admin/listings?status=active');
    expect(res.headers.location).toBe('/admin/listings?status=active');
  });
});

describe('sign-in form', () => {
  it('a console link with a long query still signs in with the right token', async () => {
    const url = `/admin/listings?q=${encodeURIComponent('é'.repeat(150))}`;
    const asked = await t.app.inject({ url });
    expect(asked.statusCode).toBe(401);
    const next = /name="next" value="([^"]*)"/.exec(asked.body)![1]!;
    const jar = cookiesOf(asked);
    const res = await t.app.inject({
      method: 'POST',
      url: '/admin/login',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookieHeader(jar) },
      payload: form({ token: TEST_ADMIN_TOKEN, _csrf: csrfOf(asked.body), next }),
    });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toMatch(/^\/admin/);
  });
});

describe('console input', () => {
  it('a NUL byte in a filter or a take-down reason is a 400 page, never a 500, and changes nothing', async () => {
    const item = await createSaleItem(t.runtime.deps, { title: 'Listing kept' });
    const { jar, csrf } = await signIn(t.app);
    for (const query of ['seller=%00', 'q=a%00b', 'seller=x%01y']) {
      const res = await t.app.inject({
        url: `/admin/listings?${query}`,
        headers: { cookie: cookieHeader(jar) },
      });
      expect(res.statusCode, query).toBe(400);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
    }
    const res = await post(t.app, `/admin/listings/${item.itemId}/take-down`, jar, {
      reason: 'spam\u0000',
      _csrf: csrf,
    });
    expect(res.statusCode).toBe(400);
    const [row] = await t.runtime.deps.sql<{ status: string }[]>`
      select status from items where id = ${item.itemId}`;
    expect(row!.status).toBe('active');
  });
});
