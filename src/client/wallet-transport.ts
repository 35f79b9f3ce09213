import { decodePaymentResponseHeader } from '@x402/core/http';
import {
  SalesChainsResponseSchema,
  UsernameResponseSchema,
  type SalesChainsResponse,
} from '../wire/accounts.js';
import { PlatformFeedbackCreatedSchema } from '../wire/feedback.js';
import {
  DeleteResponseSchema,
  SellerItemStatusSchema,
  UploadResponseSchema,
} from '../wire/listings.js';
import { AcquireResponseSchema, OrderLinksSchema } from '../wire/orders.js';
import { SellerPayoutsSchema } from '../wire/payouts.js';
import type { Transport } from './connection.js';

const receiptOf = (res: Response) => {
  const header = res.headers.get('PAYMENT-RESPONSE');
  return header ? decodePaymentResponseHeader(header) : undefined;
};

/**
 * Revision B (the default): the wallet is the identity. Account routes answer a zero-value x402
 * signature, purchases and uploads pay through x402 (the upload its listing fee).
 */
export const walletTransport: Transport = {
  keyed: false,
  accountHeaders: () => ({}),

  async acquire(c, itemId, opts, limit) {
    const res = await c.send('POST', `/api/v1/items/${itemId}/acquire`, {
      body: {
        ...(opts.chain && { chain: opts.chain }),
        policy_accepted: true,
        license_accepted: true,
      },
      pay: 'paid',
      ...(opts.chain && { chain: opts.chain }),
      approve: async (required) => {
        limit?.(required);
        await opts.approve?.(required);
      },
      ...(opts.signed && { signed: opts.signed }),
      ...(opts.resend && { resend: opts.resend }),
    });
    const settlement = receiptOf(res);
    return { order: await c.json(res, AcquireResponseSchema), settlement };
  },

  getOrder: (c, orderId) => c.identity('GET', `/api/v1/orders/${orderId}`, OrderLinksSchema),

  // Validation first (a malformed upload or a duplicate is refused before any fee), then the fee.
  // A fee signed earlier for this same upload (`resend`) is sent again as it is.
  async upload(c, form, opts) {
    const url = `${c.baseUrl}/api/v1/items`;
    let header = opts.resend;
    if (header === undefined) {
      const required = await c.promptOf(await c.fetchFn(url, { method: 'POST', body: form() }));
      await opts.approve?.(required);
      const signed = await c.signPayment(required, opts.chain);
      await opts.signed?.(signed);
      header = signed.header;
    }
    const res = await c.fetchFn(url, {
      method: 'POST',
      body: form(),
      headers: { 'PAYMENT-SIGNATURE': header },
    });
    const settlement = receiptOf(res);
    return { listing: await c.json(res, UploadResponseSchema), settlement };
  },

  sellerItemStatus: (c, itemId) =>
    c.identity('GET', `/api/v1/seller/items/${itemId}/status`, SellerItemStatusSchema),

  deleteItem: (c, itemId) => c.identity('DELETE', `/api/v1/items/${itemId}`, DeleteResponseSchema),

  getUsername: (c) => c.identity('GET', '/api/v1/agent/username', UsernameResponseSchema),

  setUsername: (c, username) =>
    c.identity('PUT', '/api/v1/agent/username', UsernameResponseSchema, { username }),

  getSalesChains: (c) => c.identity('GET', '/api/v1/agent/sales-chains', SalesChainsResponseSchema),

  setSalesChains: (c, chains): Promise<SalesChainsResponse> =>
    c.identity('PUT', '/api/v1/agent/sales-chains', SalesChainsResponseSchema, {
      sales_chains: chains,
    }),

  inboxPath: '/api/v1/inbox',
  ackPath: (feedbackId) => `/api/v1/inbox/${feedbackId}/ack`,

  platformFeedback: (c, body) =>
    c.identity('POST', '/api/v1/feedback/platform', PlatformFeedbackCreatedSchema, body),

  sellerPayouts: (c) => c.identity('GET', '/api/v1/seller/payouts', SellerPayoutsSchema),
};
