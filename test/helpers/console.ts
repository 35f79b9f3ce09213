import type { LightMyRequestResponse } from 'fastify';
import type { App } from '../../src/http/app.js';

/** The operator token the console tests configure (ADMIN_TOKEN, at least 32 characters). */
export const TEST_ADMIN_TOKEN = 'operator-token-for-the-console-tests-0123456789';

/** The CSRF token of a rendered console form. */
export function csrfOf(html: string): string {
  const m = /name="_csrf" value="([^"]+)"/.exec(html);
  if (!m) throw new Error('no CSRF field on this page');
  return m[1]!;
}

/** `name=value` pairs of every cookie a response set, for the next request's Cookie header. */
export function cookiesOf(res: LightMyRequestResponse, jar: Record<string, string> = {}) {
  for (const c of res.cookies as { name: string; value: string }[]) jar[c.name] = c.value;
  return jar;
}

export const cookieHeader = (jar: Record<string, string>) =>
  Object.entries(jar)
    .map(([k, v]) => `${k}=${v}`)
    .join('; ');

export const form = (fields: Record<string, string | string[]>) => {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) for (const x of [v].flat()) p.append(k, x);
  return p.toString();
};

/** A signed-in console browser: its cookie jar and a fresh CSRF token from a page. */
export async function signIn(
  app: App,
  token = TEST_ADMIN_TOKEN,
  remoteAddress = '127.0.0.1',
): Promise<{ jar: Record<string, string>; csrf: string; res: LightMyRequestResponse }> {
  const login = await app.inject({ method: 'GET', url: '/admin/login', remoteAddress });
  const jar = cookiesOf(login);
  const res = await app.inject({
    method: 'POST',
    url: '/admin/login',
    remoteAddress,
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      cookie: cookieHeader(jar),
    },
    payload: form({ token, _csrf: csrfOf(login.body), next: '/admin' }),
  });
  cookiesOf(res, jar);
  const page = await app.inject({
    method: 'GET',
    url: '/admin/moderation',
    remoteAddress,
    headers: { cookie: cookieHeader(jar) },
  });
  cookiesOf(page, jar);
  return { jar, csrf: page.statusCode === 200 ? csrfOf(page.body) : '', res };
}

/** A console form post as the browser sends it. */
export function post(
  app: App,
  url: string,
  jar: Record<string, string>,
  fields: Record<string, string | string[]>,
  headers: Record<string, string> = {},
) {
  return app.inject({
    method: 'POST',
    url,
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      cookie: cookieHeader(jar),
      ...headers,
    },
    payload: form(fields),
  });
}
