import { z } from 'zod';

/**
 * Wire schemas of discovery (docs/discovery-and-siwx.md): the x402 v2 PaymentRequired of every 402
 * prompt as OpenAPI documents it, and `/.well-known/x402`.
 */

const PaymentRequirementsSchema = z
  .object({
    scheme: z.string().describe('exact'),
    network: z.string().describe('CAIP-2 network, e.g. eip155:8453'),
    amount: z.string().describe('Atomic units of the asset (USDC has 6 decimals)'),
    asset: z.string(),
    payTo: z.string(),
    maxTimeoutSeconds: z.number(),
    extra: z.record(z.string(), z.unknown()).optional(),
  })
  .loose();

export const PaymentRequiredSchema = z
  .object({
    error: z.string().describe('payment_required'),
    message: z.string(),
    x402Version: z.literal(2),
    resource: z
      .object({
        url: z.string(),
        description: z.string().optional(),
        mimeType: z.string().optional(),
        serviceName: z.string().optional(),
        tags: z.array(z.string()).optional(),
        iconUrl: z.string().optional(),
      })
      .loose(),
    accepts: z.array(PaymentRequirementsSchema),
    extensions: z.record(z.string(), z.unknown()).optional(),
  })
  .loose()
  .describe('x402 v2 PaymentRequired (also base64 JSON in the PAYMENT-REQUIRED header)');

/** `/.well-known/x402`: the paid resources of this origin (x402 discovery document, version 1). */
export const WellKnownX402Schema = z.object({
  version: z.literal(1),
  resources: z.array(z.string()),
  instructions: z.string(),
});
export type WellKnownX402 = z.infer<typeof WellKnownX402Schema>;
