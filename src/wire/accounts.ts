import { z } from 'zod';
import { code } from '../errors.js';
import { bodyObject } from './input.js';
import { CHAINS, ChainSchema } from './chains.js';
import { USERNAME_RE } from './usernames.js';

/**
 * Wire schemas of the Revision B account routes (spec 2.4, 3.4, 4.3): zod only, shared by the
 * routes (validation, OpenAPI and the manifest), the typed client and the MCP tools.
 */

export const USERNAME_LIMITS = { min: 6, max: 32 } as const;
export const USERNAME_TYPES = ['automatic', 'user_set'] as const;

export const UsernameSchema = z
  .string(code('invalid_username'))
  .regex(USERNAME_RE, code('invalid_username'))
  .describe(
    '6-32 characters: letters, digits, _ and -, starting and ending with a letter or digit; unique without regard to case',
  );

export const UsernameResponseSchema = z.object({
  username: z.string().describe('Shown publicly as metadata.seller_username'),
  username_type: z
    .enum(USERNAME_TYPES)
    .describe('automatic (generated at provisioning) or user_set (changed once, permanent)'),
});
export type UsernameResponse = z.infer<typeof UsernameResponseSchema>;

export const UsernameBodySchema = bodyObject({ username: UsernameSchema }, 'invalid_username');
export type UsernameBody = z.infer<typeof UsernameBodySchema>;

export const WalletSchema = z.object({
  address: z.string().describe('EIP-55 checksummed address: the identity of the account'),
  chains: z.array(ChainSchema).describe('Chains the address is valid on (every supported one)'),
  is_primary: z.boolean(),
});
export const WalletsResponseSchema = z.object({ wallets: z.array(WalletSchema) });
export type WalletsResponse = z.infer<typeof WalletsResponseSchema>;

/** A list of chains the seller accepts sales on: non-empty, known chains, no repeats. */
export const SalesChainsSchema = z
  .array(z.string(code('invalid_sales_chains')), code('invalid_sales_chains'))
  .min(1, code('invalid_sales_chains'))
  .max(CHAINS.length, code('invalid_sales_chains'))
  .refine((list) => list.every((c) => (CHAINS as readonly string[]).includes(c)), {
    ...code('invalid_sales_chains'),
  })
  .refine((list) => new Set(list).size === list.length, { ...code('invalid_sales_chains') })
  .transform((list) => CHAINS.filter((c) => list.includes(c)))
  .describe(
    `Non-empty list of distinct chains out of ${CHAINS.join(', ')}; omitted ones are opted out`,
  );

export const SalesChainsBodySchema = bodyObject(
  { sales_chains: SalesChainsSchema },
  'invalid_sales_chains',
);
export type SalesChainsBody = z.infer<typeof SalesChainsBodySchema>;

export const SalesChainsResponseSchema = z.object({
  sales_chains: z.array(ChainSchema).describe('Chains on which your listings can be bought'),
});
export type SalesChainsResponse = z.infer<typeof SalesChainsResponseSchema>;

/** Attaching another address (spec 4.3 rule 6): the routes exist and answer 404 feature_disabled. */
export const AttachWalletBodySchema = z
  .looseObject({})
  .describe('Ignored: attaching another address is disabled in Revision B');
