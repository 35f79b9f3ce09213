import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/**
 * What the overview shows that the database does not keep: searches answered and error answers
 * by code, counted by this process since it started (each replica counts its own; /metrics has
 * the durable series).
 */
export class OperatorCounters {
  readonly since = new Date();
  searches = 0;
  readonly errors = new Map<string, number>();

  snapshot() {
    return {
      since: this.since.toISOString().slice(0, 16).replace('T', ' '),
      searches: this.searches,
      errors: [...this.errors]
        .map(([code, count]) => ({ code, count }))
        .sort((a, b) => b.count - a.count || a.code.localeCompare(b.code)),
    };
  }
}

/** Every error body starts with its code (AppError.toBody): read it without parsing the body. */
const ERROR_CODE = /^\{"error":"([a-z0-9_]{1,64})"/;

export const operatorCountersPlugin = fp(
  async (app: FastifyInstance, { counters }: { counters: OperatorCounters }) => {
    // a callback hook: nothing to wait for, so no promise per request
    app.addHook('onSend', (request, reply, payload, done) => {
      if (reply.statusCode >= 400 && typeof payload === 'string') {
        const code = ERROR_CODE.exec(payload)?.[1];
        if (code) counters.errors.set(code, (counters.errors.get(code) ?? 0) + 1);
      } else if (reply.statusCode === 200 && request.routeOptions.url === '/api/v1/search') {
        counters.searches++;
      }
      done(null, payload);
    });
  },
  { name: 'operator-counters' },
);
