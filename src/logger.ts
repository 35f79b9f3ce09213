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
 * Request lines are gathered into one write of up to 4 kB (about 15 lines) instead of one write,
 * thread-pool hand-off and reader wake-up per request (issue 25, docs/benchmarks.md "Stop 49 (node
 * side)"). A line waits at most LINE_WAIT_MS: the first line after a write arms one timer that
 * writes what is gathered (none runs while nothing is logged). `logger.flush()` and the process's
 * exit write it too (pino flushes its destination on `exit`); a `kill -9` loses at most that wait.
 */
const LINE_BATCH_BYTES = 4096;
const LINE_WAIT_MS = 100;

function batchedDestination(fd: number): { stream: DestinationStream; lineWritten: () => void } {
  const stream = pino.destination({ fd, sync: false, minLength: LINE_BATCH_BYTES });
  let timer: NodeJS.Timeout | undefined;
  const writeGathered = () => {
    timer = undefined;
    // with a callback a destination already ended reports to it instead of throwing
    stream.flush(() => {});
  };
  return {
    stream,
    lineWritten: () => {
      timer ??= setTimeout(writeGathered, LINE_WAIT_MS).unref();
    },
  };
}

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
  const batched = pretty ? undefined : batchedDestination(destination);
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
      hooks: {
        streamWrite: batched
          ? (line) => {
              batched.lineWritten();
              return redactJsonLine(line);
            }
          : redactJsonLine,
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
    pretty ?? batched!.stream,
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
