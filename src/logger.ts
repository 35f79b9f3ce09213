import { createRequire } from 'node:module';
import { isatty } from 'node:tty';
import pino, { type DestinationStream, type Logger } from 'pino';
import type { Config } from './config.js';
import { CENSOR, redactJsonLine, registerSecret } from './log-redact.js';

/** The configured secrets: wherever one of their values appears in a line, it is redacted. */
const SECRET_SETTINGS = [
  'ATTESTATION_PRIVATE_KEY',
  'RELAYER_PRIVATE_KEY',
  'URL_SIGNING_SECRET',
  'ADMIN_TOKEN',
  'METRICS_TOKEN',
  'EMBEDDINGS_API_KEY',
  'S3_SECRET_ACCESS_KEY',
] as const;

type LogConfig = Pick<Config, 'LOG_LEVEL'> &
  Partial<
    Pick<Config, 'LOG_FORMAT' | 'NODE_ENV' | 'DATABASE_URL' | (typeof SECRET_SETTINGS)[number]>
  >;

/** Makes the secrets in `config` known to the redaction (./log-redact.ts registerSecret). */
export function registerConfiguredSecrets(config: Partial<Config>): void {
  for (const name of SECRET_SETTINGS) registerSecret(config[name]);
  if (config.DATABASE_URL) {
    try {
      const password = new URL(config.DATABASE_URL).password;
      registerSecret(password);
      registerSecret(decodeURIComponent(password));
    } catch {
      // not a URL: the driver reports it
    }
  }
}

/**
 * `pretty` when asked for (LOG_FORMAT), or by default when the lines go to a terminal outside
 * production; `json` everywhere else (a log collector reads one JSON object per line).
 */
export function logFormat(config: LogConfig, terminal: boolean): 'json' | 'pretty' {
  if (config.LOG_FORMAT) return config.LOG_FORMAT;
  return terminal && config.NODE_ENV !== 'production' ? 'pretty' : 'json';
}

/** A request's line in a terminal: `GET /api/v1/search 200 3.2ms`; other lines as they are. */
const REQUEST_FIELDS = 'pid,hostname,reqId,method,route,url,status,ms';

/**
 * Structured JSON logs. Payment headers, signatures, signed URL tokens and review text never reach
 * a log line: the header paths below and every `text`, `signature`, `secret` and `apiKey` value
 * at any depth of the written line (./log-redact.ts) are replaced by "[redacted]", and so is the
 * value of every configured secret (SECRET_SETTINGS, the database password) wherever it appears.
 * In a terminal (./logFormat) the same lines are made readable by pino-pretty, a development
 * dependency: where it is not installed (the production image) the lines stay JSON.
 */
export function createLogger(config: LogConfig, destination = 1): Logger {
  registerConfiguredSecrets(config);
  const format = logFormat(config, isatty(destination));
  const pretty = format === 'pretty' ? prettyStream(destination) : undefined;
  const logger = pino(
    {
      level: config.LOG_LEVEL,
      redact: {
        paths: [
          'req.headers["payment-signature"]',
          'req.headers["x-api-key"]',
          'req.headers.authorization',
          'res.headers["payment-response"]',
        ],
        censor: CENSOR,
      },
      // review text, signatures, secrets and API keys at any depth (./log-redact.ts): path
      // redaction names fixed depths, and one nested a level deeper reached the log
      hooks: { streamWrite: redactJsonLine },
      serializers: {
        req: (req: { method: string; url: string; id: string }) => ({
          method: req.method,
          // signed URLs carry their token in the query string: log the path only
          url: req.url.split('?')[0],
          id: req.id,
        }),
      },
    },
    pretty ?? pino.destination({ fd: destination, sync: false }),
  );
  // chosen by default in a terminal, pretty quietly stays JSON where pino-pretty is absent
  if (config.LOG_FORMAT === 'pretty' && !pretty) {
    logger.warn(
      'LOG_FORMAT=pretty needs pino-pretty (a dev dependency), not installed: JSON lines',
    );
  }
  return logger;
}

function prettyStream(fd: number): DestinationStream | undefined {
  let build: typeof import('pino-pretty');
  try {
    build = createRequire(import.meta.url)('pino-pretty') as typeof build;
  } catch {
    return undefined;
  }
  return build({
    destination: fd,
    sync: false,
    colorize: isatty(fd),
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: REQUEST_FIELDS,
    messageFormat: (log: Record<string, unknown>, messageKey: string) =>
      log.status !== undefined && log.method !== undefined
        ? `${String(log[messageKey])}: ${String(log.method)} ${String(log.url)} ${String(log.status)} ${String(log.ms)}ms`
        : String(log[messageKey]),
  });
}
