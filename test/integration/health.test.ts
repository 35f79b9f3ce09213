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
