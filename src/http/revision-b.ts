import { agentUsageRevisionB } from '../domain/discovery/agent-usage.js';
import { revisionBAcquire } from '../domain/orders/acquire-mode.js';
import { AcquireResponseSchema } from '../wire/orders.js';
import type { RevisionFace } from './face.js';
import { accountRoutes } from './routes/account.js';
import { inboxRoutes, itemFeedbackRoutes } from './routes/feedback.js';
import { downloadRoutes, orderLinkRoutes } from './routes/orders.js';
import { sellerPayoutRoutes, sellerStatsRoutes } from './routes/seller-money.js';
import { sellingRoutes } from './routes/selling.js';

/** Revision B (the default): wallet identity on every account route, the paid upload. */
export const revisionBFace: RevisionFace = {
  accountAuth: 'id402',
  routes: [
    orderLinkRoutes,
    downloadRoutes,
    itemFeedbackRoutes,
    inboxRoutes,
    sellerStatsRoutes,
    sellerPayoutRoutes,
    accountRoutes,
  ],
  sellingRoutes,
  // How identity routes take a wallet's proof, as discovery clients read OpenAPI: a
  // SIGN-IN-WITH-X header (`siwx`), or the zero-value x402 proof (a wallet sign-in carried as an
  // x402 payment that never settles, so it carries the same auth kind).
  openapiComponents: {
    securitySchemes: {
      siwx: {
        type: 'apiKey',
        in: 'header',
        name: 'SIGN-IN-WITH-X',
        description:
          "Sign-In-With-X proof (CAIP-122 / EIP-4361, base64 JSON) answering the sign-in-with-x challenge of the route's 402 prompt; single use",
        'x-agentcash-auth-kind': 'siwx',
      },
      x402Identity: {
        type: 'apiKey',
        in: 'header',
        name: 'PAYMENT-SIGNATURE',
        description:
          'Zero-value x402 v2 exact payment signed from the 402 prompt of the route (wallet identity only, never settled)',
        'x-agentcash-auth-kind': 'siwx',
      },
    },
  },
  acquire: {
    mode: revisionBAcquire,
    description: 'Buy an item: 402 x402 prompt, then 200 with order and signed links',
    response: AcquireResponseSchema,
  },
  payableOnly: false,
  publicStatuses: ['active'],
  manifest: {
    authentication: () => ({
      public: 'no credential',
      id402: 'zero-value x402 signature in PAYMENT-SIGNATURE (identity, never settled)',
      paid402: 'paid x402 signature in PAYMENT-SIGNATURE',
    }),
    payment: (config) => ({ listing_fee_usdc: config.LISTING_FEE_USDC }),
    rateLimits: (config) => ({ per_wallet: config.RATE_LIMIT_ACCOUNT_MAX }),
  },
  guide: agentUsageRevisionB,
};
