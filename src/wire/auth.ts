import { z } from 'zod';
import { code } from '../errors.js';
import { bodyObject } from './input.js';
import { USERNAME_RE } from './usernames.js';
import { CHAINS } from './chains.js';
import { ISO_COUNTRIES } from './countries.js';

/**
 * Wire schemas of Revision A identity (spec 4.2, 5.1): SIWE challenges, registration, key
 * rotation and wallet linking. zod only, shared by the routes, OpenAPI and the manifest, the typed
 * client and the MCP server.
 */

export const SIWE_ACTIONS = ['register', 'link-wallet', 'rotate-key'] as const;
export const SiweActionSchema = z.enum(SIWE_ACTIONS, code('invalid_action'));
export type SiweAction = z.infer<typeof SiweActionSchema>;

const ChainSchema = z.enum(CHAINS, code('unsupported_chain'));

const AddressSchema = z
  .string(code('invalid_address'))
  .regex(/^0x[0-9a-fA-F]{40}$/, code('invalid_address'))
  .describe('EVM address, 0x-prefixed');

/** A SIWE message as issued (a few hundred characters); the bound keeps junk out of parsing. */
const MessageSchema = z
  .string(code('invalid_challenge'))
  .min(1, code('invalid_challenge'))
  .max(4096, code('invalid_challenge'))
  .describe('The challenge message exactly as issued');
/** EIP-191 signature hex (65 bytes for an EOA; longer for EIP-1271 / ERC-6492), 0x optional. */
const SignatureSchema = z
  .string(code('invalid_signature'))
  .regex(/^(0x)?([0-9a-fA-F]{2}){65,8192}$/, code('invalid_signature'))
  .describe('personal_sign signature of the message (hex)');

export const ChallengeBodySchema = bodyObject({
  address: AddressSchema,
  chain: ChainSchema.describe('base or polygon: the chain id inside the message'),
  action: SiweActionSchema.describe('register, link-wallet or rotate-key'),
});
export type ChallengeBody = z.infer<typeof ChallengeBodySchema>;

export const ChallengeResponseSchema = z.object({
  message: z
    .string()
    .describe('EIP-4361 text, valid 5 minutes, single use: sign it unchanged with personal_sign'),
});

export const SignedChallengeSchema = bodyObject({
  message: MessageSchema,
  signature: SignatureSchema,
});
export type SignedChallenge = z.infer<typeof SignedChallengeSchema>;

export const RegisterWalletSchema = bodyObject(
  {
    chain: ChainSchema,
    address: AddressSchema,
    message: MessageSchema,
    signature: SignatureSchema,
  },
  'invalid_wallets',
);

export const RegisterBodySchema = bodyObject({
  username: z
    .string(code('invalid_username'))
    .regex(USERNAME_RE, code('invalid_username'))
    .describe('6-32 letters, digits, _ or -; starts and ends with a letter or digit; public'),
  country: z
    .string(code('invalid_country'))
    .transform((c) => c.toUpperCase())
    .refine((c) => ISO_COUNTRIES.has(c), code('invalid_country'))
    .describe('ISO 3166-1 alpha-2 country code, e.g. DE'),
  terms_agreed: z
    .literal(true, code('terms_not_agreed'))
    .describe('Must be true: the marketplace policy terms'),
  wallets: z
    .array(RegisterWalletSchema, code('invalid_wallets'))
    .min(1, code('invalid_wallets'))
    .max(8, code('invalid_wallets'))
    .describe('One entry per wallet and chain, each with a signed `register` challenge'),
});
export type RegisterBody = z.infer<typeof RegisterBodySchema>;

export const RegisterResponseSchema = z.object({
  agent_id: z.uuid(),
  api_key: z.string().describe('Send as X-API-KEY; shown only once'),
});

export const RotateKeyResponseSchema = z.object({
  api_key: z.string().describe('The new key; the previous one stopped working'),
  agent_id: z.uuid(),
});

export const LinkWalletResponseSchema = z.object({ message: z.string() });
