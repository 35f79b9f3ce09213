import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs, { closeSync, mkdtempSync, openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it, vi } from 'vitest';
import { AppError } from '../../src/errors.js';
import { loadConfig } from '../../src/config.js';
import { redactJsonLine, registerSecret } from '../../src/log-redact.js';
import { createLogger, logFormat } from '../../src/logger.js';
import { loadAdminToken, loadSecrets } from '../../src/secrets.js';

describe('log format', () => {
  it('is pretty in a terminal outside production, JSON otherwise, and LOG_FORMAT decides', () => {
    expect(logFormat({ LOG_LEVEL: 'info' }, true)).toBe('pretty');
    expect(logFormat({ LOG_LEVEL: 'info' }, false)).toBe('json');
    expect(logFormat({ LOG_LEVEL: 'info', NODE_ENV: 'production' }, true)).toBe('json');
    expect(logFormat({ LOG_LEVEL: 'info', LOG_FORMAT: 'json' }, true)).toBe('json');
    expect(logFormat({ LOG_LEVEL: 'info', LOG_FORMAT: 'pretty' }, false)).toBe('pretty');
  });

  it('pretty lines are readable, one per request, and still redact signatures', async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'logs-')), 'out.log');
    const fd = openSync(file, 'w');
    try {
      const logger = createLogger({ LOG_LEVEL: 'info', LOG_FORMAT: 'pretty' }, fd);
      logger.info(
        { method: 'GET', route: '/api/v1/search', url: '/api/v1/search', status: 200, ms: 3.2 },
        'request completed',
      );
      logger.info({ payment: { signature: '0xdeadbeef' } }, 'a payment');
      let text = '';
      for (let i = 0; i < 100 && !text.includes('a payment'); i++) {
        await sleep(20);
        text = readFileSync(file, 'utf8');
      }
      expect(text).toContain('request completed: GET /api/v1/search 200 3.2ms');
      expect(text.trimStart().startsWith('{')).toBe(false);
      expect(text).not.toContain('0xdeadbeef');
      expect(text).toContain('[redacted]');
    } finally {
      closeSync(fd);
    }
  });
});

describe('request lines are written in batches', () => {
  it('lines logged one per turn of the event loop reach the file in a few writes, all of them', async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'logs-')), 'out.log');
    const fd = openSync(file, 'w');
    const write = vi.spyOn(fs, 'write');
    try {
      const logger = createLogger({ LOG_LEVEL: 'info', LOG_FORMAT: 'json' }, fd);
      // as requests are answered: one line each, a few milliseconds apart
      for (let i = 0; i < 30; i++) {
        logger.info(
          { method: 'POST', url: '/api/v1/items/x/acquire', status: 200, i },
          'request completed',
        );
        await sleep(2);
      }
      let text = '';
      for (let i = 0; i < 100 && text.split('\n').length <= 30; i++) {
        await sleep(20);
        text = readFileSync(file, 'utf8');
      }
      expect(
        text
          .trim()
          .split('\n')
          .map((l) => (JSON.parse(l) as { i: number }).i),
      ).toEqual(Array.from({ length: 30 }, (_, i) => i));
      // one write per line before (a thread-pool hand-off and a reader woken each)
      expect(write.mock.calls.filter((c) => c[0] === fd).length).toBeLessThanOrEqual(4);
    } finally {
      write.mockRestore();
      closeSync(fd);
    }
  });

  it('a line logged just before the process exits is written', () => {
    const run = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        '-e',
        `const { createLogger } = await import(${JSON.stringify(path.resolve('src/logger.ts'))});
         createLogger({ LOG_LEVEL: 'info', LOG_FORMAT: 'json' }, 1).info('last words');
         process.exit(3);`,
      ],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
    );
    expect(run.status).toBe(3);
    expect(run.stdout).toContain('"msg":"last words"');
  });
});

/** Lines written by createLogger (JSON) for `write`, parsed. */
async function linesOf(write: (logger: ReturnType<typeof createLogger>) => void, count: number) {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'logs-')), 'out.log');
  const fd = openSync(file, 'w');
  try {
    write(createLogger({ LOG_LEVEL: 'info', LOG_FORMAT: 'json' }, fd));
    let text = '';
    for (let i = 0; i < 100 && text.split('\n').length <= count; i++) {
      await sleep(20);
      text = readFileSync(file, 'utf8');
    }
    return {
      text,
      lines: text
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>),
    };
  } finally {
    closeSync(fd);
  }
}

describe('redaction at any depth', () => {
  const review = 'Great archive, but my password hunter2 is in the README';
  const signature = `0x${'5e'.repeat(65)}`;

  it('a review text, a signature, a secret or an API key never reaches the log, however deep', async () => {
    const { text, lines } = await linesOf((logger) => {
      // depth 2 and 3 as the brief names them, and plain values of every kind
      logger.warn({ err: { review: { text: review, rating: 2 } } }, 'one');
      logger.warn({ body: { payload: { signature, nonce: '0x01' } } }, 'two');
      logger.warn(
        { op: { action: 'set_webhook', args: { hook: { secret: { value: 'whsec_x' } } } } },
        'three',
      );
      logger.info({ text: review, agent: { apiKey: 12345, keys: [{ apiKey: 'mk_1' }] } }, 'four');
    }, 4);
    for (const leaked of [review, signature, 'whsec_x', '12345', 'mk_1'])
      expect(text).not.toContain(leaked);
    expect(lines[0]!.err).toEqual({ review: { text: '[redacted]', rating: 2 } });
    expect(lines[1]!.body).toEqual({ payload: { signature: '[redacted]', nonce: '0x01' } });
    expect(lines[2]!.op).toEqual({
      action: 'set_webhook',
      args: { hook: { secret: '[redacted]' } },
    });
    expect(lines[3]).toMatchObject({
      text: '[redacted]',
      agent: { apiKey: '[redacted]', keys: [{ apiKey: '[redacted]' }] },
      msg: 'four',
    });
  });

  it('errors that carry a request body or a review in their details are logged without them', async () => {
    // an error from a facilitator call carrying the payment it sent (err.request...signature)
    const settle = Object.assign(new Error('facilitator settle failed'), {
      request: { paymentPayload: { payload: { signature, authorization: { value: '1000' } } } },
    });
    // an AppError whose details hold a review, as the error handler logs it
    const refused = new AppError('invalid_request', {
      details: { review: { text: review, rating: 1 } },
    });
    const { text, lines } = await linesOf((logger) => {
      logger.child({ reqId: 'r1' }).warn({ err: settle, outcome: 'unknown' }, 'settle threw');
      logger.error({ err: refused }, 'unhandled error');
    }, 2);
    expect(text).not.toContain(signature);
    expect(text).not.toContain(review);
    expect(lines[0]).toMatchObject({
      reqId: 'r1',
      err: {
        message: 'facilitator settle failed',
        request: {
          paymentPayload: {
            payload: { signature: '[redacted]', authorization: { value: '1000' } },
          },
        },
      },
    });
    expect(lines[1]).toMatchObject({
      err: { extras: { details: { review: { text: '[redacted]', rating: 1 } } } },
    });
  });

  it('leaves everything else as it was, quotes inside strings included', () => {
    const line = `${JSON.stringify({ level: 30, msg: 'said "text":"hi" and \\"x', url: '/a', n: [1, { b: null }] })}\n`;
    expect(redactJsonLine(line)).toBe(line);
    const nested = JSON.stringify({
      a: { text: 'x "y" \\ z', b: [1, 2] },
      c: { text: [{ d: '}' }] },
      e: 1,
    });
    expect(JSON.parse(redactJsonLine(nested))).toEqual({
      a: { text: '[redacted]', b: [1, 2] },
      c: { text: '[redacted]' },
      e: 1,
    });
  });
});

describe('secret shapes inside a log message or any other string', () => {
  const key = `0x${'4c0883a69102937d6231471b5dbb6204fe512961708279f3f5e3b8e7a6c4d2a1'}`;
  const bareKey = key.slice(2);
  const signature = `0x${'5e'.repeat(64)}1b`;
  const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhZ2VudCJ9.c2lnbmF0dXJlLXBhcnQ';
  const apiKey = `mk_0123456789abcdef_${'Q'.repeat(20)}-_${'z9'.repeat(10)}x`;
  const txHash = `0x${'ab12'.repeat(16)}`;

  it('a private key, a signature, a bearer token or an API key spelled out in text is redacted', async () => {
    const { text, lines } = await linesOf((logger) => {
      logger.error(`invalid private key ${key} for the payout signer`);
      logger.warn({ err: { message: `signer rejected PRIVATE_KEY=${bareKey}` } }, 'boot');
      logger.warn(`settle failed: signature ${signature} was rejected`);
      logger.warn(
        { err: { message: `call reverted, data: ${signature.slice(0, 10)}${'00'.repeat(96)}` } },
        'x',
      );
      logger.info({ headers: [`Authorization: Bearer ${jwt}`] }, `upstream said "Bearer ${jwt}"`);
      logger.info(`agent used ${apiKey} twice`);
    }, 6);
    for (const leaked of [bareKey, signature.slice(2, 130), jwt, apiKey, '00'.repeat(96)])
      expect(text).not.toContain(leaked);
    expect(lines[0]!.msg).toBe('invalid private key [redacted] for the payout signer');
    expect(lines[1]!.err).toMatchObject({ message: 'signer rejected PRIVATE_KEY=[redacted]' });
    expect(lines[2]!.msg).toBe('settle failed: signature [redacted] was rejected');
    expect(lines[4]).toMatchObject({
      headers: ['Authorization: Bearer [redacted]'],
      msg: 'upstream said "Bearer [redacted]"',
    });
    // the key id finds the key's row; only its secret part is redacted
    expect(lines[5]!.msg).toBe('agent used mk_0123456789abcdef_[redacted] twice');
  });

  it('a transaction hash, a digest or a nonce named as such stays readable', async () => {
    const { lines } = await linesOf((logger) => {
      logger.info(
        { txHash, archiveSha256: bareKey, nonce: key },
        `settled in transaction ${txHash}`,
      );
      logger.warn(`receipt not found for hash: ${txHash}`);
    }, 2);
    expect(lines[0]).toMatchObject({
      txHash,
      archiveSha256: bareKey,
      nonce: key,
      msg: `settled in transaction ${txHash}`,
    });
    expect(lines[1]!.msg).toBe(`receipt not found for hash: ${txHash}`);
  });

  it('a key is found wherever it starts in the line, and a run one short of a key is left', () => {
    for (let pad = 0; pad < 140; pad++) {
      const line = JSON.stringify({ msg: `${'-'.repeat(pad)}${bareKey} ${'e'.repeat(63)}` });
      expect(JSON.parse(redactJsonLine(line))).toEqual({
        msg: `${'-'.repeat(pad)}[redacted] ${'e'.repeat(63)}`,
      });
    }
  });

  it('a line without a secret shape is returned as it is; hex inside a longer word is not one', () => {
    const line = `${JSON.stringify({
      level: 30,
      reqId: '5b0c1c0e-8a4c-4f7e-9d3e-0f6c2a8e4b11',
      msg: 'request completed',
      id: `g${bareKey}`,
      bearer: 'Bearer',
    })}\n`;
    expect(redactJsonLine(line)).toBe(line);
  });
});

describe('known secrets are redacted under any name', () => {
  // fresh keys per run: the registry is process-wide and a key registered here stays known
  const attestation = `0x${randomBytes(32).toString('hex')}` as `0x${string}`;
  const relayer = `0x${randomBytes(32).toString('hex')}` as `0x${string}`;
  const adminToken = randomBytes(24).toString('base64url');
  const dbPassword = 'p@ss w0rd-of-the-db';
  const txHash = `0x${'ab12'.repeat(16)}`;

  it('a configured key logged as a hash, digest, tx hash or nonce, or inside text, is redacted', async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'logs-')), 'out.log');
    const fd = openSync(file, 'w');
    try {
      const logger = createLogger(
        {
          LOG_LEVEL: 'info',
          LOG_FORMAT: 'json',
          ATTESTATION_PRIVATE_KEY: attestation,
          RELAYER_PRIVATE_KEY: relayer,
          ADMIN_TOKEN: adminToken,
          DATABASE_URL: `postgres://app:${encodeURIComponent(dbPassword)}@db:5432/app`,
        },
        fd,
      );
      logger.info({ hash: attestation, digest: relayer.slice(2), txHash, nonce: txHash }, 'one');
      logger.warn(
        { tx: { txHash: attestation.toUpperCase().replace('0X', '0x') } },
        `settled in transaction ${relayer}; key id k${relayer.slice(2)}z`,
      );
      logger.error({ err: { message: `login as ${adminToken} with ${dbPassword}` } }, 'three');
      let text = '';
      for (let i = 0; i < 100 && text.split('\n').length <= 3; i++) {
        await sleep(20);
        text = readFileSync(file, 'utf8');
      }
      for (const leaked of [attestation.slice(2), relayer.slice(2), adminToken, dbPassword])
        expect(text.toLowerCase()).not.toContain(leaked.toLowerCase());
      const lines = text
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      // the real transaction hash next to them stays readable
      expect(lines[0]).toMatchObject({
        hash: '[redacted]',
        digest: '[redacted]',
        txHash,
        nonce: txHash,
      });
      expect(lines[1]).toMatchObject({
        tx: { txHash: '[redacted]' },
        msg: 'settled in transaction [redacted]; key id k[redacted]z',
      });
      expect(lines[2]!.err).toMatchObject({ message: 'login as [redacted] with [redacted]' });
    } finally {
      closeSync(fd);
    }
  });

  it('the keys a process generates (attestation, URL signing, operator token) are known too', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'secrets-'));
    const config = loadConfig({ DATA_DIR: dir });
    const secrets = await loadSecrets(config);
    const admin = await loadAdminToken(config);
    const line = JSON.stringify({
      sha256: secrets.attestationKey,
      nonce: secrets.urlSigningKey.toString('hex'),
      msg: `token ${admin.token}`,
    });
    expect(JSON.parse(redactJsonLine(line))).toEqual({
      sha256: '[redacted]',
      nonce: '[redacted]',
      msg: 'token [redacted]',
    });
  });

  it('a 32-byte value nobody registered, under a hash-like name, stays: it cannot be told apart', () => {
    const other = randomBytes(32).toString('hex');
    const line = JSON.stringify({ hash: other });
    expect(redactJsonLine(line)).toBe(line);
    registerSecret(other);
    expect(JSON.parse(redactJsonLine(line))).toEqual({ hash: '[redacted]' });
  });
});
