import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Deps } from '../../deps.js';
import { linkWallet, register, rotateKey } from '../../domain/auth/registration.js';
import {
  ChallengeBodySchema,
  ChallengeResponseSchema,
  LinkWalletResponseSchema,
  RegisterBodySchema,
  RegisterResponseSchema,
  RotateKeyResponseSchema,
  SignedChallengeSchema,
} from '../../wire/auth.js';
import { createChallenge } from '../../domain/auth/siwe.js';
import { agentOf } from '../identity.js';
import { describe } from '../route-meta.js';
import { ErrorSchema } from '../../wire/errors.js';

/** Revision A identity (spec 4.2, 5.1): SIWE challenges, registration, key rotation, linking. */
export const authRoutes: FastifyPluginAsyncZod<{ deps: Deps }> = async (app, { deps }) => {
  app.post(
    '/api/v1/auth/challenge',
    {
      config: {
        auth: 'public',
        throttle: 'challenge',
        errors: ['invalid_address', 'invalid_action', 'unsupported_chain'],
      },
      schema: describe(
        'account',
        'A SIWE (EIP-4361) message to sign with personal_sign: single use, 5 minutes, one action',
        {
          body: ChallengeBodySchema,
          response: { 200: ChallengeResponseSchema, 400: ErrorSchema },
        },
      ),
    },
    async (request) => ({ message: await createChallenge(deps, request.body) }),
  );

  app.post(
    '/api/v1/register',
    {
      config: {
        auth: 'public',
        throttle: 'signed',
        errors: [
          'invalid_challenge',
          'challenge_expired',
          'challenge_used',
          'challenge_action_mismatch',
          'invalid_signature',
          'invalid_country',
          'terms_not_agreed',
          'invalid_wallets',
          'invalid_username',
          'username_taken',
          'wallet_already_registered',
          'wallet_already_linked',
          'region_unavailable',
        ],
      },
      schema: describe(
        'account',
        'Create an account from signed register challenges; the API key is shown once',
        {
          body: RegisterBodySchema,
          response: { 201: RegisterResponseSchema, 400: ErrorSchema, 409: ErrorSchema },
        },
      ),
    },
    async (request, reply) => reply.status(201).send(await register(deps, request.body)),
  );

  app.post(
    '/api/v1/auth/rotate-key',
    {
      config: {
        auth: 'public',
        throttle: 'signed',
        errors: [
          'invalid_challenge',
          'challenge_expired',
          'challenge_used',
          'challenge_action_mismatch',
          'invalid_signature',
          'agent_not_found',
        ],
      },
      schema: describe(
        'account',
        'A new API key for the account of the signing wallet; the old key stops working',
        {
          body: SignedChallengeSchema,
          response: { 200: RotateKeyResponseSchema, 400: ErrorSchema, 404: ErrorSchema },
        },
      ),
    },
    async (request) => rotateKey(deps, request.body),
  );

  app.post(
    '/api/v1/auth/link-wallet',
    {
      config: {
        auth: 'key',
        throttle: 'signed',
        errors: [
          'invalid_challenge',
          'challenge_expired',
          'challenge_used',
          'challenge_action_mismatch',
          'invalid_signature',
          'wallet_already_linked',
          'wallet_already_registered',
        ],
      },
      schema: describe(
        'account',
        "Link another wallet (on the challenge's chain) to your account",
        {
          body: SignedChallengeSchema,
          response: {
            200: LinkWalletResponseSchema,
            400: ErrorSchema,
            401: ErrorSchema,
            409: ErrorSchema,
          },
        },
      ),
    },
    async (request) => linkWallet(deps, agentOf(request), request.body),
  );
};
