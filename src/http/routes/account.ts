import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Deps } from '../../deps.js';
import {
  assertUsernameChangeable,
  attachWalletDisabled,
  changeUsername,
  salesChainsOf,
  setSalesChains,
  usernameOf,
  walletsOf,
} from '../../domain/accounts/account.js';
import {
  AttachWalletBodySchema,
  SalesChainsBodySchema,
  SalesChainsResponseSchema,
  UsernameBodySchema,
  UsernameResponseSchema,
  WalletsResponseSchema,
} from '../../wire/accounts.js';
import { agentOf } from '../identity.js';
import { describe } from '../route-meta.js';
import { ErrorSchema } from '../../wire/errors.js';

/** Revision B account routes (spec 2.4, 3.4, 4.3): zero-value identity, never provisioning. */
export const accountRoutes: FastifyPluginAsyncZod<{ deps: Deps }> = async (app, { deps }) => {
  app.get(
    '/api/v1/agent/username',
    {
      config: { auth: 'id402' },
      schema: describe('account', 'Your username and whether it was generated or chosen', {
        response: { 200: UsernameResponseSchema },
      }),
    },
    async (request) => usernameOf(agentOf(request)),
  );

  app.put(
    '/api/v1/agent/username',
    {
      config: { auth: 'id402', errors: ['username_taken', 'username_already_changed'] },
      // spec 3.4: once user_set, ANY attempt answers 409, a name breaking the rules included, so
      // the body is judged after the account is known (without a proof, bad input is still 400)
      attachValidation: true,
      schema: describe(
        'account',
        'Choose your username, once (409 username_taken / username_already_changed)',
        { body: UsernameBodySchema, response: { 200: UsernameResponseSchema, 409: ErrorSchema } },
      ),
    },
    async (request) => {
      const agent = agentOf(request);
      assertUsernameChangeable(agent);
      if (request.validationError) throw request.validationError;
      return changeUsername(deps, agent, request.body.username);
    },
  );

  app.get(
    '/api/v1/agent/wallets',
    {
      config: { auth: 'id402' },
      schema: describe('account', 'The address of your account and the chains it is valid on', {
        response: { 200: WalletsResponseSchema },
      }),
    },
    async (request) => walletsOf(agentOf(request)),
  );

  app.get(
    '/api/v1/agent/sales-chains',
    {
      config: { auth: 'id402' },
      schema: describe('account', 'Chains on which you accept sales', {
        response: { 200: SalesChainsResponseSchema },
      }),
    },
    async (request) => salesChainsOf(agentOf(request)),
  );

  app.put(
    '/api/v1/agent/sales-chains',
    {
      config: { auth: 'id402' },
      schema: describe(
        'account',
        'Set the chains you accept sales on; omitted chains leave prompts and available_chains at once',
        { body: SalesChainsBodySchema, response: { 200: SalesChainsResponseSchema } },
      ),
    },
    async (request) => setSalesChains(deps, agentOf(request), request.body.sales_chains),
  );

  // Attaching another address (spec 4.3 rule 6, 7.2): the routes exist and always answer 404
  // feature_disabled, without a handshake (there is nothing to prove for a disabled feature).
  // The body is documented, not validated: whatever is sent, the answer is feature_disabled.
  const disabled = {
    config: {
      auth: 'public' as const,
      docBody: { 'application/json': AttachWalletBodySchema.optional() },
    },
    schema: describe(
      'account',
      'Attach another address to your account: disabled in Revision B (404 feature_disabled)',
      { response: { 404: ErrorSchema } },
    ),
  };
  app.post('/api/v1/agent/wallets', disabled, async () => attachWalletDisabled());
  // Revision A's link-wallet route (src/http/revision-a/auth.ts) is live in that mode.
  app.post('/api/v1/auth/link-wallet', disabled, async () => attachWalletDisabled());
  app.delete(
    '/api/v1/agent/wallets/:address',
    {
      config: { auth: 'public', errors: ['feature_disabled'] },
      schema: describe(
        'account',
        'Detach an address from your account: disabled in Revision B (404 feature_disabled)',
        { params: z.object({ address: z.string() }), response: { 404: ErrorSchema } },
      ),
    },
    async () => attachWalletDisabled(),
  );
};
