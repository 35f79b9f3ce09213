import { describe, expect, it, vi } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('loadConfig', () => {
  it('runs on an empty environment with the documented defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      PORT: 3000,
      HOST: '127.0.0.1',
      DATA_DIR: './data',
      CONTRACT_REVISION: 'B',
    });
    expect(c.DATABASE_URL).toBeUndefined();
    expect(c.PUBLIC_BASE_URL).toBe('http://127.0.0.1:3000');
  });

  it('treats empty values as unset and strips a trailing slash from the public URL', () => {
    const c = loadConfig({ PORT: '', PUBLIC_BASE_URL: 'https://market.example/' });
    expect(c.PORT).toBe(3000);
    expect(c.PUBLIC_BASE_URL).toBe('https://market.example');
  });

  it('TRUST_PROXY takes true/false, a hop count or addresses and CIDRs; anything else is a config error', () => {
    // default: private-network proxies only, so a public client cannot forge X-Forwarded-For
    expect(loadConfig({}).TRUST_PROXY).toEqual(['loopback', 'linklocal', 'uniquelocal']);
    expect(loadConfig({ TRUST_PROXY: 'true' }).TRUST_PROXY).toBe(true);
    expect(loadConfig({ TRUST_PROXY: 'false' }).TRUST_PROXY).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '2' }).TRUST_PROXY).toBe(2);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, ::1/128,loopback' }).TRUST_PROXY).toEqual([
      '10.0.0.0/8',
      '::1/128',
      'loopback',
    ]);
    for (const bad of ['10.0.0.0/33', 'fe80::/129', 'proxy.internal', '10.0.0', 'maybe', ',']) {
      expect(() => loadConfig({ TRUST_PROXY: bad }), bad).toThrow(ConfigError);
      expect(() => loadConfig({ TRUST_PROXY: bad }), bad).toThrow(/TRUST_PROXY/);
    }
  });

  it('reports every problem at once', () => {
    try {
      loadConfig({ PORT: 'abc', LOG_LEVEL: 'loud', CONTRACT_REVISION: 'C' });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      const problems = (e as ConfigError).problems.join('\n');
      expect(problems).toMatch(/PORT/);
      expect(problems).toMatch(/LOG_LEVEL/);
      expect(problems).toMatch(/CONTRACT_REVISION/);
    }
  });

  it('a remote facilitator needs RPC on every network, so a died settlement can be resolved', () => {
    const url = 'https://facilitator.example';
    expect(() => loadConfig({ FACILITATOR_URL: url })).toThrow(
      /RPC_URL_BASE[\s\S]*RPC_URL_POLYGON/,
    );
    expect(() => loadConfig({ FACILITATOR_URL: url, RPC_URL_BASE: 'http://rpc' })).toThrow(
      /RPC_URL_POLYGON/,
    );
    expect(
      loadConfig({ FACILITATOR_URL: url, RPC_URL_BASE: 'http://a', RPC_URL_POLYGON: 'http://b' })
        .FACILITATOR_URL,
    ).toBe(url);
  });

  it('production secrets have no defaults: DATABASE_URL without URL_SIGNING_SECRET or ATTESTATION_PRIVATE_KEY is refused', () => {
    expect(() => loadConfig({ DATABASE_URL: 'postgres://db/market' })).toThrow(
      /URL_SIGNING_SECRET/,
    );
    expect(() =>
      loadConfig({ DATABASE_URL: 'postgres://db/market', URL_SIGNING_SECRET: 'x'.repeat(32) }),
    ).toThrow(/ATTESTATION_PRIVATE_KEY/);
    expect(() =>
      loadConfig({
        DATABASE_URL: 'postgres://db/market',
        URL_SIGNING_SECRET: 'x'.repeat(32),
        ATTESTATION_PRIVATE_KEY: `0x${'1'.repeat(64)}`,
        ADMIN_TOKEN: 'a'.repeat(32),
      }),
    ).not.toThrow();
  });

  it('the operator console has no default credential on Postgres: DATABASE_URL needs ADMIN_TOKEN', () => {
    expect(() =>
      loadConfig({ DATABASE_URL: 'postgres://db/market', URL_SIGNING_SECRET: 'x'.repeat(32) }),
    ).toThrow(/ADMIN_TOKEN/);
    expect(() => loadConfig({ ADMIN_TOKEN: 'too-short' })).toThrow(/ADMIN_TOKEN/);
  });

  it('a remote embeddings endpoint needs its model and dimension', () => {
    expect(() => loadConfig({ EMBEDDINGS_URL: 'http://127.0.0.1:11434/v1' })).toThrow(
      /EMBEDDINGS_MODEL/,
    );
  });
});

describe('.env.example', () => {
  it('documents every configuration key', async () => {
    const { readFile } = await import('node:fs/promises');
    const { ConfigSchema } = await import('../../src/config.js');
    const text = await readFile(new URL('../../.env.example', import.meta.url), 'utf8');
    const keys = Object.keys(
      (ConfigSchema.in as unknown as { shape: Record<string, unknown> }).shape,
    );
    expect(keys.length).toBeGreaterThan(20);
    const missing = keys.filter((k) => !new RegExp(`^#? ?${k}=`, 'm').test(text));
    expect(missing).toEqual([]);
  });
});

describe('loadConfig at start', () => {
  it('parses without generating code: the schema is read once per process (issue 25, start time)', async () => {
    // zod's compiled fast path for an object is a `new Function` made at its first parse; for the
    // configuration it is ~10 ms of every start spent on a parser used once. A fresh copy of the
    // module (its own schema, never parsed), with the Function constructor watched.
    vi.resetModules();
    const fresh = (await import('../../src/config.js')) as typeof import('../../src/config.js');
    const made: string[] = [];
    const real = globalThis.Function;
    globalThis.Function = new Proxy(real, {
      construct(target, args: string[]) {
        made.push(args.at(-1) ?? '');
        return Reflect.construct(target, args) as object;
      },
    });
    try {
      const c = fresh.loadConfig({ PORT: '4100', TRUST_PROXY: '2' });
      expect(c.PORT).toBe(4100);
      expect(c.TRUST_PROXY).toBe(2);
      expect(() => fresh.loadConfig({ PORT: 'x' })).toThrow(/PORT/);
    } finally {
      globalThis.Function = real;
    }
    expect(made.filter((body) => body !== '')).toEqual([]);
  });
});
