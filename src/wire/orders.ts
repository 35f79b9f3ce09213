import { z } from 'zod';
import { code } from '../errors.js';
import { ChainSchema } from './chains.js';
import { bodyObject, pageQuery } from './input.js';
import { ScanAttestationSchema } from './previews.js';

/** The signed scan report of the item bought (issue 29), when the listing has one. */
const attestation = ScanAttestationSchema.optional().describe(
  'Signed scan report of the archive bought: verify it, then compare its archiveSha256 with the download',
);

/**
 * Wire schemas of purchases (spec 2.3, 4.1): zod only, shared by the routes, the OpenAPI document
 * and manifest, the typed client and the MCP tools.
 */

/**
 * Acquire body. Everything is optional at prompt time; legal flags sent before payment bind
 * nothing and are not recorded. Any other key is refused (400 `invalid_request`) before a prompt
 * is made or a payment read, but for `item_id`: a client that speaks Revision A's buy body sends
 * it, and the path names the item, so it is accepted and ignored.
 */
export const AcquireBodySchema = bodyObject({
  item_id: z.string().optional().describe('Ignored: the path names the item'),
  currency: z.string().optional().describe('USDC (the only currency)'),
  chain: ChainSchema.optional().describe('Preferred chain; listed first in the prompt'),
  policy_accepted: z
    .boolean()
    .optional()
    .describe('Required true on the signed completion: the marketplace terms'),
  license_accepted: z
    .boolean()
    .optional()
    .describe('Required true on the signed completion: the buyer licence'),
});
export type AcquireBody = z.infer<typeof AcquireBodySchema>;

/** Signed, time-limited links of an order (refetched for free with `GET /api/v1/orders/{uuid}`). */
export const OrderLinksSchema = z.object({
  download_url: z.string().describe('Signed link to the archive; HEAD works'),
  invoice_url: z.string().describe('Signed link to the invoice (JSON, HTML or Markdown by Accept)'),
  expires_in: z.string().describe('Human lifetime of both links, e.g. "15 minutes"'),
});
export type OrderLinks = z.infer<typeof OrderLinksSchema>;

/** `GET /api/v1/orders`: the signing wallet's purchases, newest first (links via the order route). */
export const BuyerOrdersQuerySchema = z.object({
  item_id: z.uuid(code('invalid_item_id')).optional().describe('Only the orders of this listing'),
  ...pageQuery,
});

export const BuyerOrderSchema = z.object({
  order_id: z.uuid(),
  item_id: z.uuid(),
  title: z.string().describe("The listing's title"),
  price_usdc: z.number().describe('Amount paid, USDC'),
  chain: ChainSchema,
  network: z.string().describe('CAIP-2 network of the payment'),
  transaction: z.string().describe('Settlement transaction'),
  completed_at: z.string(),
});

export const BuyerOrdersSchema = z.object({
  orders: z.array(BuyerOrderSchema),
  pagination: z.object({ limit: z.number(), offset: z.number(), total: z.number() }),
});
export type BuyerOrders = z.infer<typeof BuyerOrdersSchema>;

export const AcquireResponseSchema = z.object({
  order_id: z.uuid(),
  ...OrderLinksSchema.shape,
  attestation,
});
export type AcquireResponse = z.infer<typeof AcquireResponseSchema>;

/** Revision A public acquire: no invoice link; the buyer's account and where to get a key. */
export const PublicAcquireAResponseSchema = z.object({
  order_id: z.uuid(),
  download_url: OrderLinksSchema.shape.download_url,
  expires_in: OrderLinksSchema.shape.expires_in,
  buyer_account: z.object({
    created: z.boolean().describe('True when this purchase created the account'),
    username: z.string(),
    rotate_key_url: z.string().describe('Where the buyer obtains a persistent API key'),
  }),
  attestation,
});
export type PublicAcquireAResponse = z.infer<typeof PublicAcquireAResponseSchema>;

/** Revision A keyed purchase body: the acquire fields plus the item. */
export const BuyBodySchema = bodyObject({
  ...AcquireBodySchema.shape,
  item_id: z.uuid(code('invalid_item_id')).describe('The item to buy'),
  chain: ChainSchema.optional().describe(
    'Preferred chain at prompt time; required on the signed completion',
  ),
});
export type BuyBody = z.infer<typeof BuyBodySchema>;

/** Revision A keyed purchase result. */
export const BuyResponseSchema = z.object({
  order_id: z.uuid(),
  download_url: OrderLinksSchema.shape.download_url,
  expires_in: OrderLinksSchema.shape.expires_in,
  attestation,
});
export type BuyResponse = z.infer<typeof BuyResponseSchema>;

/** Revision A `GET /api/v1/orders/{uuid}/download`: a fresh signed download link. */
export const DownloadLinkSchema = BuyResponseSchema.omit({ order_id: true, attestation: true });

export const OrderParamsSchema = z.object({ uuid: z.uuid(code('invalid_order_id')) });

/** `exp` and `sig` of a signed link. */
export const SignedLinkQuerySchema = z.object({
  exp: z.string().optional(),
  sig: z.string().optional(),
});

/** The invoice of a completed order (JSON representation; HTML and Markdown render the same rows). */
export const InvoiceSchema = z.object({
  invoice_number: z.string(),
  order_id: z.uuid(),
  issued_at: z.string(),
  status: z.literal('paid'),
  item: z.object({ id: z.string(), title: z.string(), file_name: z.string(), sha256: z.string() }),
  seller: z.object({ username: z.string() }),
  buyer: z.object({ address: z.string(), username: z.string() }),
  amount: z.object({
    currency: z.literal('USDC'),
    total: z.string(),
    total_raw: z.string(),
    decimals: z.number(),
  }),
  payment: z.object({
    chain: z.string(),
    network: z.string(),
    asset: z.string(),
    pay_to: z.string(),
    payer: z.string(),
    transaction: z.string(),
    scheme: z.literal('exact'),
  }),
  legal: z.object({
    policy_version: z.string(),
    policy_url: z.string(),
    license_version: z.string(),
    license_url: z.string(),
    accepted_at: z.string(),
  }),
});
export type Invoice = z.infer<typeof InvoiceSchema>;

/** The archive bytes of a download (documented for OpenAPI; the body is binary). */
export const ArchiveDownloadSchema = z
  .unknown()
  .describe(
    'The archive (application/zip or application/gzip); X-Content-SHA256 and Content-Disposition headers name it',
  );

/**
 * The acquire prompt (402 body and `PAYMENT-REQUIRED` header, spec 2.9) as a client reads it:
 * the x402 PaymentRequired with `accepts[]` and the `extensions.bazaar` entry (legal versions,
 * item). Unknown fields pass through.
 */
export const AcquirePromptSchema = z
  .object({
    x402Version: z.number(),
    accepts: z
      .array(
        z
          .object({
            scheme: z.string(),
            network: z.string(),
            amount: z.string().regex(/^\d+$/),
            asset: z.string(),
            payTo: z.string(),
            maxTimeoutSeconds: z.number(),
          })
          .loose(),
      )
      .min(1),
    extensions: z
      .object({
        bazaar: z
          .object({
            info: z
              .object({
                legal: z
                  .object({
                    policy: z.object({ version: z.string(), url: z.string() }),
                    license: z.object({ version: z.string(), url: z.string() }),
                  })
                  .optional(),
                item: z
                  .object({ id: z.string(), title: z.string(), price_usdc: z.number() })
                  .loose()
                  .optional(),
              })
              .loose(),
          })
          .loose()
          .optional(),
      })
      .loose()
      .optional(),
  })
  .loose();
export type AcquirePrompt = z.infer<typeof AcquirePromptSchema>;
