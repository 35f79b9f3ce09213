import type { FastifyError, FastifyInstance } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { AppError } from '../errors.js';

/** Request-schema convention: a zod issue message that looks like a code IS the error code. */
const CODE = /^[a-z][a-z0-9_]*$/;

/**
 * The one place an error becomes an HTTP response. Domain code throws AppError; validation
 * failures become 400 with a stable code; anything unexpected is a 500 with no internals.
 */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError | AppError | Error, request, reply) => {
    if (err instanceof AppError) {
      if (err.status >= 500) request.log.warn({ code: err.code }, 'service error');
      for (const [k, v] of Object.entries(err.extras.headers ?? {})) reply.header(k, v);
      return reply.status(err.status).send(err.toBody());
    }
    if (hasZodFastifySchemaValidationErrors(err)) {
      const first = err.validation[0];
      const text = first?.message ?? 'invalid';
      const isCode = CODE.test(text);
      const code = isCode ? text : 'invalid_request';
      const field = first?.instancePath?.replace(/^\//, '').replace(/\//g, '.');
      const where = field || err.validationContext || 'request';
      return reply.status(400).send({
        error: code,
        message: `${where}: ${isCode ? text.replace(/_/g, ' ') : text}`,
      });
    }
    const fe = err as FastifyError;
    switch (fe.code) {
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
      case 'FST_REQ_FILE_TOO_LARGE':
        return reply.status(413).send({ error: 'payload_too_large', message: fe.message });
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        return reply.status(415).send({ error: 'unsupported_media_type', message: fe.message });
      case 'FST_ERR_CTP_INVALID_JSON_BODY':
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
        return reply.status(400).send({ error: 'invalid_json', message: fe.message });
      case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
        return reply.status(400).send({ error: 'invalid_request', message: fe.message });
    }
    if (typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
      return reply.status(fe.statusCode).send({ error: 'invalid_request', message: fe.message });
    }
    request.log.error({ err }, 'unhandled error');
    return reply.status(500).send({ error: 'internal_error' });
  });

  app.setNotFoundHandler((_request, reply) => reply.status(404).send({ error: 'not_found' }));
}
