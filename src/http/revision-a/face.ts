import { CHALLENGE_TTL_SECONDS } from '../../domain/auth/siwe.js';
import { agentUsageRevisionA } from '../../domain/revision-a/agent-usage.js';
import { revisionAAcquire } from '../../domain/revision-a/acquire-mode.js';
import { PublicAcquireAResponseSchema } from '../../wire/orders.js';
import type { RevisionFace } from '../face.js';
import { itemFeedbackRoutes } from '../routes/feedback.js';
import { downloadRoutes } from '../routes/orders.js';
import { sellerStatsRoutes } from '../routes/seller-money.js';
import { keyedAccountRoutes } from './account.js';
import { authRoutes } from './auth.js';
import { keyedRoutes } from './routes.js';

/** Revision A (API keys; spec 4.2, 5.1): SIWE registration, keyed account and upload routes. */
export const revisionAFace: RevisionFace = {
  accountAuth: 'key',
  routes: [downloadRoutes, itemFeedbackRoutes, sellerStatsRoutes, authRoutes, keyedAccountRoutes],
  sellingRoutes: keyedRoutes,
  // Revision A's credential: the API key header (spec 5.1). Revision B has no key scheme.
  openapiComponents: {
    securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } },
  },
  acquire: {
    mode: revisionAAcquire(),
    description:
      'Buy an item without a key: 402 x402 prompt, then 200 with order, link and buyer account (chain required on completion)',
    response: PublicAcquireAResponseSchema,
  },
  // A buyer pays the seller's wallet directly: an item without one on any chain cannot be bought.
  payableOnly: true,
  publicStatuses: ['pending_scan', 'scanning', 'active', 'rejected'],
  manifest: {
    authentication: (base) => ({
      public: 'no credential',
      key: 'header x-api-key: the API key from registration or key rotation (shown once)',
      paid402: 'paid x402 signature in PAYMENT-SIGNATURE (purchases)',
      registration: {
        challenge_url: `${base}/api/v1/auth/challenge`,
        register_url: `${base}/api/v1/register`,
        rotate_key_url: `${base}/api/v1/auth/rotate-key`,
        link_wallet_url: `${base}/api/v1/auth/link-wallet`,
        message: 'SIWE (EIP-4361), signed unchanged with EIP-191 personal_sign',
        challenge_valid_seconds: CHALLENGE_TTL_SECONDS,
        actions: ['register', 'link-wallet', 'rotate-key'],
        signers: ['EOA (EIP-191)', 'smart account (EIP-1271, ERC-6492)'],
      },
    }),
    payment: () => ({}),
    rateLimits: (config) => ({
      challenges_per_address: config.RATE_LIMIT_CHALLENGE_MAX,
      per_api_key: config.RATE_LIMIT_ACCOUNT_MAX,
    }),
  },
  guide: agentUsageRevisionA,
};
