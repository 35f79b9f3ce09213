import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Documents offered as JSON, HTML or Markdown (invoices): the representation is chosen from
 * `Accept` by @fastify/accepts (quality, then order), JSON when `Accept` is absent, `*\/*` or names
 * nothing we offer.
 */
export type Representation = 'json' | 'html' | 'markdown';

const OFFERED = ['application/json', 'text/html', 'text/markdown'] as const;

export function representationOf(request: FastifyRequest): Representation {
  const type = request.accepts().type([...OFFERED]);
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
