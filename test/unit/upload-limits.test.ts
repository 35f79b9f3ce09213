import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseMetadata } from '../../src/domain/listings/upload.js';
import { LISTING_LIMITS, UploadMetadataSchema } from '../../src/wire/listings.js';

const config = { MIN_PRICE_USDC: 0.1, MAX_PRICE_USDC: 100 };
const valid = {
  title: 'Rate limiter',
  description: 'A token bucket for Fastify',
  prompt_summary: 'limit requests per client',
  tech_stack: 'TypeScript, Fastify',
  prices: { USDC: 5 },
};
const fields = [
  ['title', LISTING_LIMITS.title],
  ['description', LISTING_LIMITS.description],
  ['prompt_summary', LISTING_LIMITS.promptSummary],
  ['tech_stack', LISTING_LIMITS.techStack],
] as const;

/** The code and message the upload answers with, or 'ok'. */
function uploadVerdict(metadata: unknown): string {
  try {
    parseMetadata(metadata, config);
    return 'ok';
  } catch (err) {
    const e = err as { code: string; message: string };
    return `${e.code}: ${e.message}`;
  }
}

describe('upload metadata: the schema OpenAPI and MCP publish is the one the upload enforces', () => {
  const published = z.toJSONSchema(UploadMetadataSchema, { io: 'input' }) as {
    properties: Record<string, { maxLength?: number; description?: string }>;
  };

  it.each(fields)(
    '%s: the published limit is the enforced one, and its text says so',
    (field, max) => {
      expect(published.properties[field]!.maxLength).toBe(max);
      expect(published.properties[field]!.description).toContain(String(max));
      expect(uploadVerdict({ ...valid, [field]: 'x'.repeat(max) })).toBe('ok');
      expect(uploadVerdict({ ...valid, [field]: 'x'.repeat(max + 1) })).toBe(
        `invalid_metadata: ${field} must be at most ${max} characters`,
      );
      // the limit counts trimmed characters, on both sides
      expect(uploadVerdict({ ...valid, [field]: ` ${'x'.repeat(max)} ` })).toBe('ok');
      expect(UploadMetadataSchema.shape[field].safeParse(` ${'x'.repeat(max)} `).success).toBe(
        true,
      );
    },
  );

  it('the published schema refuses what the upload refuses: blank and control-character text', () => {
    for (const [field] of fields) {
      const bad = `a\u0000b`;
      expect(uploadVerdict({ ...valid, [field]: bad })).toBe(
        `invalid_metadata: ${field} must not contain NUL or other control characters`,
      );
      expect(UploadMetadataSchema.shape[field].safeParse(bad).success).toBe(false);
    }
    for (const field of ['title', 'description', 'tech_stack'] as const) {
      expect(uploadVerdict({ ...valid, [field]: '   ' })).toBe(
        `invalid_metadata: ${field} must not be empty`,
      );
      expect(UploadMetadataSchema.shape[field].safeParse('   ').success).toBe(false);
    }
  });

  it('keeps its own codes for keys and prices, and accepts a null prompt_summary as absent', () => {
    expect(uploadVerdict({ ...valid, extra: 1 })).toBe(
      'unknown_metadata_key: unknown metadata keys: extra (allowed: title, description, prompt_summary, tech_stack, prices)',
    );
    expect(uploadVerdict({ ...valid, prices: { USDC: 1000 } })).toBe(
      'invalid_price: prices.USDC must be between 0.1 and 100',
    );
    expect(uploadVerdict({ ...valid, prices: undefined })).toBe(
      'invalid_price: prices is required, e.g. { "USDC": 5 }',
    );
    expect(uploadVerdict({ ...valid, title: undefined })).toBe(
      'invalid_metadata: title is required',
    );
    expect(uploadVerdict({ ...valid, prompt_summary: null })).toBe('ok');
  });
});
