import type { PaymentPayload } from '@x402/core/types';
import { z } from 'zod';

/**
 * The x402 v2 `PaymentPayload` as @x402/core's `PaymentPayloadV2Schema` accepts it, field for
 * field, in zod 4 (our one zod): @x402/core validates with zod 3, whose parse is several times
 * slower on every paid request. Only version 2 is accepted here (the guard refuses 1 anyway).
 * The unit tests run both on the same valid and broken payloads and compare the answers.
 */
const nonEmpty = z.string().min(1);
const record = z.record(z.string(), z.unknown());
const undefinedIfNull = <T extends z.ZodType>(t: T) => t.nullish().transform((v) => v ?? undefined);
const printable = z
  .string()
  .min(1)
  .max(32)
  .regex(/^[\x20-\x7e]+$/);

const ResourceInfo = z.object({
  url: nonEmpty,
  description: undefinedIfNull(z.string()),
  mimeType: undefinedIfNull(z.string()),
  serviceName: undefinedIfNull(printable),
  tags: undefinedIfNull(z.array(printable).max(5)),
  iconUrl: undefinedIfNull(z.string().max(2048)),
});

const Requirements = z.object({
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
});

const PaymentPayloadV2 = z.object({
  x402Version: z.literal(2),
  resource: undefinedIfNull(ResourceInfo),
  accepted: Requirements,
  payload: record,
  extensions: record.nullish(),
});

/** The decoded `PAYMENT-SIGNATURE` value as an x402 v2 payload, or undefined when it is not one. */
export function parsePaymentPayloadV2(value: unknown): PaymentPayload | undefined {
  const r = PaymentPayloadV2.safeParse(value);
  return r.success ? (r.data as PaymentPayload) : undefined;
}
