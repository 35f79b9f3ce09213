import { getAddress, type Hex } from 'viem';
import { z } from 'zod';

/**
 * The zod 4 schema of an x402 `exact` EVM payload (EIP-3009) that src/x402/eip3009.ts's hand
 * check replaced, kept as the reference its answers are held to
 * (test/unit/x402-exact-payload.test.ts) and priced against (test/bench/purchase-assembly.ts):
 * the objects it built, key for key and in order, not just its verdicts.
 */
const uint = z
  .union([z.string().regex(/^\d{1,78}$/), z.number().int().nonnegative()])
  .transform((v) => BigInt(v));
const hexAddress = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/)
  .transform((a) => getAddress(a));
const signatureHex = z
  .string()
  .regex(/^(0x)?[0-9a-fA-F]+$/)
  .refine((s) => s.replace(/^0x/, '').length % 2 === 0 && s.replace(/^0x/, '').length >= 130)
  .transform((s) => (s.startsWith('0x') ? s : `0x${s}`).toLowerCase() as Hex);

export const ZodExactEvmPayload = z.object({
  signature: signatureHex,
  authorization: z.object({
    from: hexAddress,
    to: hexAddress,
    value: uint,
    validAfter: uint,
    validBefore: uint,
    nonce: z
      .string()
      .regex(/^0x[0-9a-fA-F]{64}$/)
      .transform((n) => n.toLowerCase() as Hex),
  }),
});
