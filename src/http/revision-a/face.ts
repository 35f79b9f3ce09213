import type { RevisionFace } from '../face.js';
import { keyedAccountRoutes } from './account.js';
import { authRoutes } from './auth.js';
import { keyedRoutes } from './routes.js';

/** Revision A (API keys; spec 4.2, 5.1): SIWE registration, keyed account and upload routes. */
export const revisionAFace: RevisionFace = {
  accountRoutes: [authRoutes, keyedAccountRoutes],
  sellingRoutes: keyedRoutes,
  // Revision A's credential: the API key header (spec 5.1). Revision B has no key scheme.
  openapiComponents: {
    securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } },
  },
};
