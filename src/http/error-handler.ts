import type { Socket } from 'node:net';
import type {
  FastifyError,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  FastifyServerOptions,
} from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { statementCancelled, unreachableQuery } from '../db/unreachable.js';
import { AppError, isErrorCode, type ErrorCode } from '../errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The catalog code this request was answered with, if it failed (read by the metrics). */
    errorCode?: ErrorCode;
  }
}

/**
 * node:http's reason phrases, from its CommonJS exports: an ES import of `node:http` builds the
 * module's ES facade, which reads every export, and its `WebSocket`, `MessageEvent` and `CloseEvent`
 * getters load undici (~60 ms of a start's main thread, issue 25) that nothing here uses.
 */
const { STATUS_CODES } = process.getBuiltinModule('node:http');

/** Fastify's own request errors, mapped onto catalog codes (everything else 4xx: invalid_request). */
const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload_too_large',
  FST_REQ_FILE_TOO_LARGE: 'payload_too_large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_INVALID_JSON_BODY: 'invalid_json',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'invalid_json',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'invalid_request',
  FST_PARTS_LIMIT: 'too_many_parts',
  FST_FILES_LIMIT: 'too_many_parts',
  FST_FIELDS_LIMIT: 'too_many_parts',
  FST_INVALID_MULTIPART_CONTENT_TYPE: 'invalid_multipart',
  FST_MULTIPART_INVALID_CONTENT_TYPE: 'invalid_multipart',
};

/**
 * The one place an error becomes an HTTP response. Domain code throws AppError; validation
 * failures become 400 with the catalog code their schema names (`code(...)` in src/errors.ts);
 * anything unexpected is a 500 with no internals.
 */
/** A schema validation failure as the AppError it answers (400, the code its schema names). */
export function validationError(err: unknown): AppError | undefined {
  if (!hasZodFastifySchemaValidationErrors(err)) return undefined;
  const first = err.validation[0];
  const text = first?.message ?? 'invalid';
  const known = isErrorCode(text) ? text : undefined;
  const field = first?.instancePath?.replace(/^\//, '').replace(/\//g, '.');
  const where = field || err.validationContext || 'request';
  // a key the schema does not name is named back (the client can see its typo)
  const keys =
    first?.keyword === 'unrecognized_keys' ? (first.params as { keys?: unknown }).keys : undefined;
  const named = Array.isArray(keys) ? ` (${keys.map(String).join(', ')})` : '';
  return new AppError(known ?? 'invalid_request', {
    message: known ? `${where}: ${new AppError(known).message}${named}` : `${where}: ${text}`,
  });
}

/** Seconds a client waits after 503 `database_unavailable` (a Postgres restart takes a few). */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/** 503 `database_unavailable` with `retry_after` and its header (and the catalog's message unless given). */
export function databaseUnavailable(message?: string): AppError {
  return new AppError('database_unavailable', {
    ...(message !== undefined && { message }),
    retry_after: DATABASE_RETRY_AFTER_SECONDS,
    headers: { 'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS) },
  });
}

/** The answer's message when the database was reached but a statement was cut by its timeout. */
const STATEMENT_CANCELLED =
  'The database is busy: a statement of this request waited past its time limit and was cancelled. Retry the same request after the time given; a signed payment is never charged twice.';

function sendDatabaseUnavailable(request: FastifyRequest, reply: FastifyReply, message?: string) {
  const e = databaseUnavailable(message);
  request.errorCode = e.code;
  for (const [k, v] of Object.entries(e.extras.headers ?? {})) reply.header(k, v);
  return reply.status(e.status).send(e.toBody());
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError | AppError | Error, request, reply) => {
    if (err instanceof AppError) {
      request.errorCode = err.code;
      if (err.status >= 500) request.log.warn({ code: err.code }, 'service error');
      for (const [k, v] of Object.entries(err.extras.headers ?? {})) reply.header(k, v);
      return reply.status(err.status).send(err.toBody());
    }
    const invalid = validationError(err);
    if (invalid) {
      request.errorCode = invalid.code;
      return reply.status(invalid.status).send(invalid.toBody());
    }
    const fe = err as FastifyError;
    const mapped = fe.code ? FASTIFY_CODES[fe.code] : undefined;
    if (
      mapped ||
      (typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500)
    ) {
      const e = new AppError(mapped ?? 'invalid_request', { message: fe.message });
      request.errorCode = e.code;
      return reply.status(e.status).send(e.toBody());
    }
    const cancelled = statementCancelled(err);
    if (cancelled) {
      // a statement stuck behind a lock or running away, cut by DATABASE_STATEMENT_TIMEOUT_SECONDS
      // (or a transaction idle past its bound): rolled back whole, so the client retries as for
      // an outage, and the operator sees one line naming the timeout, no stack
      request.log.warn(
        { timeout: cancelled.timeout, reason: cancelled.reason },
        `request failed: a database statement was cancelled by ${cancelled.timeout}`,
      );
      return sendDatabaseUnavailable(request, reply, STATEMENT_CANCELLED);
    }
    const unreachable = unreachableQuery(err);
    if (unreachable) {
      // a Postgres restart or failover: the client retries, the operator sees one line, no stack
      request.log.warn({ reason: unreachable }, 'request failed: the database is out of reach');
      return sendDatabaseUnavailable(request, reply);
    }
    request.log.error({ err }, 'unhandled error');
    const e = new AppError('internal_error');
    request.errorCode = e.code;
    return reply.status(e.status).send(e.toBody());
  });

  app.setNotFoundHandler((_request, reply) => {
    const e = new AppError('not_found');
    return reply.status(e.status).send(e.toBody());
  });
}

/**
 * Malformed HTTP that never reaches a route (a bad request line or header, headers too large, a
 * request that did not arrive within the timeouts): answered on the raw socket in the catalog's
 * shape, then the connection is closed. Replaces Fastify's `{ error: "Bad Request", ... }`.
 */
export const clientErrorHandler: NonNullable<FastifyServerOptions['clientErrorHandler']> =
  function (this: FastifyInstance, err: Error & { code?: string }, socket: Socket) {
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    const e =
      err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? new AppError('request_timeout')
        : err.code === 'HPE_HEADER_OVERFLOW'
          ? new AppError('headers_too_large')
          : new AppError('invalid_request', {
              message: 'The request is not well-formed HTTP/1.1 (request line or headers).',
            });
    this.log.debug({ code: err.code }, 'client error');
    if (socket.writable) {
      const body = JSON.stringify(e.toBody());
      socket.write(
        `HTTP/1.1 ${e.status} ${STATUS_CODES[e.status]}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
          `Content-Type: application/json; charset=utf-8\r\nConnection: close\r\n\r\n${body}`,
      );
    }
    socket.destroy();
  };

/** Router errors (a path that is not valid percent-encoding, a path parameter past its length). */
export function frameworkErrors(
  error: FastifyError,
  _request: FastifyRequest,
  reply: FastifyReply,
): void {
  const e = new AppError('invalid_request', {
    message:
      error.code === 'FST_ERR_MAX_PARAM_LENGTH'
        ? 'A path segment is longer than any id this API uses.'
        : 'The URL path is not valid percent-encoding.',
  });
  void reply.status(e.status).send(e.toBody());
}
