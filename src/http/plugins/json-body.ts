import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/** The JSON body parser, with an empty body read as no body. */
export const jsonBodyPlugin = fp(
  async (app: FastifyInstance) => {
    // `Content-Type: application/json` with nothing after it is no body, not a 400: clients send
    // that header on bodiless identity probes (DELETE) and on the unpaid acquire call.
    // A `__proto__` or `constructor` key is data like any other: JSON.parse makes it an own
    // property (no prototype is touched) and each route's schema refuses or drops unknown keys.
    const parseJson = app.getDefaultJsonParser('ignore', 'ignore');
    app.removeContentTypeParser('application/json');
    app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
      const text = String(body);
      if (text.trim() === '') return done(null, undefined);
      return parseJson(request, text, done);
    });
  },
  { name: 'json-body' },
);
