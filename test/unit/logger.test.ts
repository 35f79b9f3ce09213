import { closeSync, mkdtempSync, openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createLogger, logFormat } from '../../src/logger.js';

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
