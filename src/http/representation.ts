import type { FastifyReply, FastifyRequest } from 'fastify';
import Negotiator from 'negotiator';

/**
 * Of the media types `offered` (full types, in our order of preference), the one the request's
 * `Accept` prefers (quality, then specificity, then our order), by `negotiator`; the first offered
 * when there is no `Accept`, false when it names none of them. What @fastify/accepts'
 * `request.accepts().type(offered)` answered: `accepts` itself loads mime-db (a 180 KB object
 * literal, ~20 ms of a start's main thread, issue 25) to look up bare extensions, which we never
 * offer.
 */
export function preferredType<T extends string>(
  request: FastifyRequest,
  offered: readonly T[],
): T | false {
  if (!request.headers.accept) return offered[0] ?? false;
  const [best] = new Negotiator(request.raw).mediaTypes([...offered]);
  return best === undefined ? false : offered[offered.indexOf(best as T)]!;
}

/**
 * Documents offered as JSON, HTML or Markdown (invoices): the representation is chosen from
 * `Accept` (preferredType), JSON when `Accept` is absent, `*\/*` or names nothing we offer.
 */
export type Representation = 'json' | 'html' | 'markdown';

const OFFERED = ['application/json', 'text/html', 'text/markdown'] as const;

export function representationOf(request: FastifyRequest): Representation {
  const type = preferredType(request, OFFERED);
  return type === 'text/html' ? 'html' : type === 'text/markdown' ? 'markdown' : 'json';
}

export function sendRepresentation(
  request: FastifyRequest,
  reply: FastifyReply,
  doc: { json: unknown; html: () => string; markdown: () => string },
) {
  reply.header('Vary', 'Accept');
  switch (representationOf(request)) {
    case 'html':
      return reply.type('text/html; charset=utf-8').send(doc.html());
    case 'markdown':
      return reply.type('text/markdown; charset=utf-8').send(doc.markdown());
    default:
      return reply.type('application/json; charset=utf-8').send(doc.json);
  }
}
