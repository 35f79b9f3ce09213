import pino, { type Logger } from 'pino';
import type { Config } from './config.js';

/**
 * Structured JSON logs. Payment headers, signatures, signed URL tokens and review text never reach
 * a log line: the redaction list below removes them wherever they appear in a logged object.
 */
export function createLogger(config: Pick<Config, 'LOG_LEVEL'>, destination = 1): Logger {
  return pino(
    {
      level: config.LOG_LEVEL,
      redact: {
        paths: [
          'req.headers["payment-signature"]',
          'req.headers["x-api-key"]',
          'req.headers.authorization',
          'res.headers["payment-response"]',
          '*.signature',
          '*.text',
          '*.secret',
          '*.apiKey',
        ],
        censor: '[redacted]',
      },
      serializers: {
        req: (req: { method: string; url: string; id: string }) => ({
          method: req.method,
          // signed URLs carry their token in the query string: log the path only
          url: req.url.split('?')[0],
          id: req.id,
        }),
      },
    },
    pino.destination({ fd: destination, sync: false }),
  );
}
