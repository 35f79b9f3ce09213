import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

/** Health probes arrive every few seconds from orchestrators: their request lines go to debug. */
const PROBE_PATHS = new Set(['/api/v1/health']);
const isProbe = (request: FastifyRequest) =>
  request.method === 'GET' && PROBE_PATHS.has(request.url.split('?')[0] ?? '');

/**
 * Passed to the Fastify constructor (`logController`): an option, not a hook. One line per
 * request at info once it is answered, with its route pattern, path (never the query string,
 * where signed URLs carry their token), status and latency; the arrival only at debug. Headers
 * are not logged at all (payment signatures, keys), nor bodies (review texts).
 */
export class RequestLogs extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    const line = {
      method: request.method,
      route: request.routeOptions.url ?? null,
      url: request.url.split('?')[0],
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 10) / 10,
      ...(request.errorCode && { code: request.errorCode }),
    };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else if (isProbe(request) && reply.statusCode < 500) reply.log.debug(line, 'request completed');
    else reply.log.info(line, 'request completed');
  }
}
