import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

/** Health probes arrive every few seconds from orchestrators: their request lines go to debug. */
const PROBE_PATHS = new Set(['/api/v1/health']);
const isProbe = (request: FastifyRequest) =>
  request.method === 'GET' && PROBE_PATHS.has(request.url.split('?')[0] ?? '');

/** Passed to the Fastify constructor (`logController`): an option, not a hook. */
export class QuietProbeLogs extends LogController {
  override incomingRequest(request: FastifyRequest, reply: FastifyReply): void {
    if (isProbe(request)) request.log.debug({ req: request }, 'incoming request');
    else super.incomingRequest(request, reply);
  }

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    if (isProbe(request) && !error && reply.statusCode < 500) {
      reply.log.debug({ res: reply, responseTime: reply.elapsedTime }, 'request completed');
    } else super.requestCompleted(error, request, reply);
  }
}
