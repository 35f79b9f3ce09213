import { z } from 'zod';

/**
 * Wire schemas of issue 29: the buyer's preview of a listing, its compact summary (item detail,
 * search results, quote) and the signed scan report. The preview's bounds are the scan's
 * (src/scan/preview.ts PREVIEW_LIMITS): at most 500 tree entries, 10 languages, 50 manifests of
 * 200 package names each, a README excerpt of at most 40 lines and 4 KB.
 */
export const PreviewSummarySchema = z
  .object({
    files: z.number().int().nonnegative(),
    lines: z.number().int().nonnegative().describe('Non-blank lines of code'),
    languages: z.array(z.string()).max(3).describe('Top languages by lines of code'),
    license: z.string().describe("SPDX id or expression, 'NOASSERTION' or 'none'"),
  })
  .describe('Compact preview: what the archive holds (GET /api/v1/items/{uuid}/preview for more)');
export type PreviewSummaryWire = z.infer<typeof PreviewSummarySchema>;

export const ItemPreviewSchema = z.object({
  item_id: z.uuid(),
  files: z.number().int().nonnegative(),
  bytes: z.number().int().nonnegative(),
  lines: z.number().int().nonnegative(),
  tree: z.object({
    entries: z.array(z.object({ path: z.string(), size: z.number().int().nonnegative() })).max(500),
    total: z.number().int().nonnegative(),
    truncated: z.boolean(),
  }),
  languages: z
    .array(
      z.object({
        name: z.string(),
        lines: z.number().int().nonnegative(),
        files: z.number().int().nonnegative(),
      }),
    )
    .max(10),
  license: z.object({ spdx: z.string(), file: z.string().nullable() }),
  manifests: z
    .array(
      z.object({
        path: z.string(),
        kind: z.string(),
        packages: z.array(z.string()).max(200),
      }),
    )
    .max(50),
  tests: z.object({
    present: z.boolean(),
    files: z.number().int().nonnegative(),
    frameworks: z.array(z.string()),
  }),
  readme: z
    .object({
      path: z.string(),
      excerpt: z.string().describe('First lines, HTML-escaped, secrets redacted'),
      truncated: z.boolean(),
    })
    .nullable(),
  computed_at: z.string(),
});
export type ItemPreview = z.infer<typeof ItemPreviewSchema>;

/**
 * The EIP-712 statement the marketplace signs when a listing becomes active. Verify with viem:
 * `verifyTypedData({ address: a.signer, ...a.typed_data, signature: a.signature })`.
 */
export const ATTESTATION_DOMAIN = {
  name: 'Artifact Marketplace Scan Report',
  version: '1',
} as const;
export const ATTESTATION_TYPES = {
  ScanAttestation: [
    { name: 'itemId', type: 'string' },
    { name: 'archiveSha256', type: 'bytes32' },
    { name: 'archiveSize', type: 'uint64' },
    { name: 'seller', type: 'address' },
    { name: 'scannerVersion', type: 'string' },
    { name: 'ruleSetHash', type: 'bytes32' },
    { name: 'verdict', type: 'string' },
    { name: 'scannedAt', type: 'uint64' },
  ],
} as const;
export const ATTESTATION_PRIMARY_TYPE = 'ScanAttestation';

const hex = (bytes: number) => z.string().regex(new RegExp(`^0x[0-9a-fA-F]{${bytes * 2}}$`));

export const AttestationMessageSchema = z.object({
  itemId: z.uuid(),
  archiveSha256: hex(32),
  archiveSize: z.number().int().positive(),
  seller: hex(20),
  scannerVersion: z.string(),
  ruleSetHash: hex(32),
  verdict: z.literal('accept'),
  scannedAt: z.number().int().positive().describe('Unix seconds'),
});
export type AttestationMessage = z.infer<typeof AttestationMessageSchema>;

export const ScanAttestationSchema = z.object({
  item_id: z.uuid(),
  status: z
    .enum(['active', 'no_longer_active'])
    .describe('no_longer_active: taken down or deleted since; the statement stays verifiable'),
  signer: hex(20).describe('The attestation address published in /api/v1/skills'),
  typed_data: z.object({
    domain: z.object({ name: z.literal(ATTESTATION_DOMAIN.name), version: z.string() }),
    types: z.object({
      ScanAttestation: z.array(z.object({ name: z.string(), type: z.string() })),
    }),
    primaryType: z.literal(ATTESTATION_PRIMARY_TYPE),
    message: AttestationMessageSchema,
  }),
  signature: z.string().regex(/^0x[0-9a-f]+$/),
});
export type ScanAttestation = z.infer<typeof ScanAttestationSchema>;
