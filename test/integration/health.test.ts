import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestContext } from '../helpers/app.js';

let t: TestContext;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.close());

describe('GET /api/v1/health', () => {
  it('answers exactly { status: "ok" }', async () => {
    const res = await t.app.inject('/api/v1/health');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok' });
  });
  it('unknown routes get a JSON 404', async () => {
    const res = await t.app.inject('/api/v1/nope');
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'not_found' });
  });
});

describe('request limits', () => {
  it('refuses an oversized JSON body on a small route with 413 before parsing it', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/items/7d1c0e0e-1111-4111-8111-111111111111/acquire',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ chain: 'base', padding: 'x'.repeat(100 * 1024) }),
    });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({ error: 'payload_too_large' });
  });
});
