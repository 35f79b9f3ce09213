import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestContext } from '../helpers/app.js';
import { cookieHeader, cookiesOf, csrfOf, form, TEST_ADMIN_TOKEN } from '../helpers/console.js';

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
