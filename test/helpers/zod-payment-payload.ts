import { z } from 'zod';

/**
 * The zod 4 schema of an x402 v2 payment payload that src/x402/payload-schema.ts's hand check
 * replaced, kept as the reference its answers are held to (test/unit/x402-payload-schema.test.ts)
 * and priced against (test/bench/purchase-assembly.ts): the objects it built, key for key and in
 * order, not just its verdicts.
 */
const nonEmpty = z.string().min(1);
const record = z.record(z.string(), z.unknown());
const undefinedIfNull = <T extends z.ZodType>(t: T) => t.nullish().transform((v) => v ?? undefined);
const printable = z
  .string()
  .min(1)
  .max(32)
  .regex(/^[\x20-\x7e]+$/);

export const ZodPaymentPayloadV2 = z.object({
  x402Version: z.literal(2),
  resource: undefinedIfNull(
    z.object({
      url: nonEmpty,
      description: undefinedIfNull(z.string()),
      mimeType: undefinedIfNull(z.string()),
      serviceName: undefinedIfNull(printable),
      tags: undefinedIfNull(z.array(printable).max(5)),
      iconUrl: undefinedIfNull(z.string().max(2048)),
    }),
  ),
  accepted: z.object({
    scheme: nonEmpty,
    network: z
      .string()
      .min(3)
      .refine((v) => v.includes(':')),
    amount: nonEmpty,
    asset: nonEmpty,
    payTo: nonEmpty,
    maxTimeoutSeconds: z.number().positive(),
    extra: record.nullish(),
  }),
  payload: record,
  extensions: record.nullish(),
});
