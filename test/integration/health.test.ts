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
    expect(res.json()).toEqual({ error: 'not_found', message: expect.any(String) });
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

describe('error mapping', () => {
  it('malformed JSON → 400 invalid_json; an unknown media type → 415 unsupported_media_type', async () => {
    const url = '/api/v1/items/7d1c0e0e-1111-4111-8111-111111111111/acquire';
    const bad = await t.app.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/json' },
      payload: '{"chain":',
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toBe('invalid_json');
    const xml = await t.app.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/xml' },
      payload: '<a/>',
    });
    expect(xml.statusCode).toBe(415);
    expect(xml.json().error).toBe('unsupported_media_type');
  });

  it('a repeated tech_stack parameter → 400 invalid_tech_stack', async () => {
    const res = await t.app.inject({ url: '/api/v1/search?q=x&tech_stack=a&tech_stack=b' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('invalid_tech_stack');
  });

  it('a JSON upload with fields outside the contract → 400 invalid_request, before any fee', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/items',
      payload: { compression: 'zip', file: 'UEsDBA==', metadata: {}, extra: true },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('invalid_request');
    expect(res.headers['payment-required']).toBeUndefined();
  });

  it('an unexpected failure → 500 internal_error with no internals in the body', async () => {
    const { default: Fastify } = await import('fastify');
    const { installErrorHandling } = await import('../../src/http/error-handler.js');
    const bare = Fastify({ logger: false });
    installErrorHandling(bare);
    bare.get('/boom', async () => {
      throw new Error('connection to 10.0.0.5 refused: password authentication failed');
    });
    const res = await bare.inject('/boom');
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ error: 'internal_error', message: expect.any(String) });
    await bare.close();
  });

  it('a connection error of another client than the database (a store, a facilitator) is not database_unavailable', async () => {
    const { default: Fastify } = await import('fastify');
    const { installErrorHandling } = await import('../../src/http/error-handler.js');
    const bare = Fastify({ logger: false });
    installErrorHandling(bare);
    const refused = () =>
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9000'), { code: 'ECONNREFUSED' });
    bare.get('/other', async () => {
      throw refused();
    });
    // as postgres.js rejects a query: the same error, marked with its query
    bare.get('/database', async () => {
      throw Object.defineProperty(refused(), 'query', { value: 'select 1' });
    });
    const other = await bare.inject('/other');
    expect(other.statusCode).toBe(500);
    expect(other.json().error).toBe('internal_error');
    const database = await bare.inject('/database');
    expect(database.statusCode).toBe(503);
    expect(database.json().error).toBe('database_unavailable');
    await bare.close();
  });
});
