import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { AppError } from '../../errors.js';

/** Upper bound of a PAYMENT-SIGNATURE header (a signed payload echoing our prompt is a few KB). */
export const MAX_PAYMENT_SIGNATURE_BYTES = 32 * 1024;

/** An oversized payment header is refused before any route reads it. */
export const paymentSignatureCapPlugin = fp(
  async (app: FastifyInstance) => {
    // a callback hook: nothing to wait for, so no promise per request
    app.addHook('onRequest', (request, _reply, done) => {
      const sig = request.headers['payment-signature'];
      if (typeof sig === 'string' && sig.length > MAX_PAYMENT_SIGNATURE_BYTES) {
        done(
          new AppError('payment_header_too_large', {
            message: `PAYMENT-SIGNATURE is limited to ${MAX_PAYMENT_SIGNATURE_BYTES} bytes`,
          }),
        );
        return;
      }
      done();
    });
  },
  { name: 'payment-signature-cap' },
);
