import {
  PublicItemSchema,
  SearchResultsSchema,
  type PublicItem,
  type SearchResult,
} from '../wire/items.js';
import type { Chain } from '../wire/chains.js';
import { AcquirePromptSchema, type AcquirePrompt } from '../wire/orders.js';
import {
  ItemPreviewSchema,
  ScanAttestationSchema,
  type ItemPreview,
  type ScanAttestation,
} from '../wire/previews.js';
import { z } from 'zod';
import { MarketplaceError, readJson } from './errors.js';

/** Search parameters of `GET /api/v1/search` (spec 4.1). */
export interface SearchParams {
  q: string;
  tech_stack?: string;
  min_price?: number;
  max_price?: number;
  /** SPDX id the archive's detected licence must be (`MIT`). */
  license?: string;
}

/** The public catalogue routes: no wallet, no payment. */
export class CatalogClient {
  private readonly fetchFn: typeof globalThis.fetch;

  constructor(private readonly opts: { baseUrl: string; fetch?: typeof globalThis.fetch }) {
    this.fetchFn = opts.fetch ?? globalThis.fetch;
  }

  /** At most 20 ranked active listings. */
  async search(params: SearchParams): Promise<SearchResult[]> {
    const query = new URLSearchParams();
    for (const [k, v] of Object.entries(params))
      if (v !== undefined) query.set(k, typeof v === 'number' ? plainDecimal(v) : v);
    return readJson(
      await this.fetchFn(`${this.opts.baseUrl}/api/v1/search?${query}`),
      SearchResultsSchema,
    );
  }

  /** Detail of an active listing; 404 `item_not_found` otherwise. */
  async getItem(itemId: string): Promise<PublicItem> {
    return readJson(
      await this.fetchFn(`${this.opts.baseUrl}/api/v1/items/${encodeURIComponent(itemId)}`),
      PublicItemSchema,
    );
  }

  /** The buyer's preview of an active listing (file tree, languages, licence, README excerpt). */
  async preview(itemId: string): Promise<ItemPreview> {
    return readJson(
      await this.fetchFn(`${this.opts.baseUrl}/api/v1/items/${encodeURIComponent(itemId)}/preview`),
      ItemPreviewSchema,
    );
  }

  /** The signed scan report of a listing (also after a takedown: `status` says so). */
  async attestation(itemId: string): Promise<ScanAttestation> {
    return readJson(
      await this.fetchFn(
        `${this.opts.baseUrl}/api/v1/items/${encodeURIComponent(itemId)}/attestation`,
      ),
      ScanAttestationSchema,
    );
  }

  private signers: Promise<string[]> | undefined;

  /**
   * The addresses that sign scan reports, as the discovery manifest publishes them: the current
   * one first, then retired keys that still sign stored reports (after a key rotation). Read once;
   * `fresh` reads them again.
   */
  async attestationSigners(opts: { fresh?: boolean } = {}): Promise<string[]> {
    if (opts.fresh) this.signers = undefined;
    this.signers ??= this.fetchFn(`${this.opts.baseUrl}/api/v1/skills`)
      .then((res) => readJson(res, SkillsSignerSchema))
      .then((m) => [m.scan_attestation.signer, ...(m.scan_attestation.retired_signers ?? [])]);
    return this.signers.catch((err: unknown) => {
      this.signers = undefined;
      throw err;
    });
  }

  /**
   * The purchase prompt of an item, unsigned (spec 4.1 acquire, step 1): the 402 answer to an
   * acquire with at most a chain hint, from the `PAYMENT-REQUIRED` header (the body otherwise).
   * Nothing is signed and nothing moves.
   */
  async quote(itemId: string, chain?: Chain): Promise<AcquirePrompt> {
    const res = await this.fetchFn(
      `${this.opts.baseUrl}/api/v1/items/${encodeURIComponent(itemId)}/acquire`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(chain ? { chain } : {}),
      },
    );
    if (res.status !== 402) {
      await readJson(res);
      throw new MarketplaceError(res.status, 'unexpected_response', undefined);
    }
    const header = res.headers.get('PAYMENT-REQUIRED');
    const text = await res.text();
    let prompt: unknown;
    try {
      prompt = JSON.parse(header ? Buffer.from(header, 'base64').toString('utf8') : text);
    } catch {
      throw new MarketplaceError(402, 'unexpected_response', undefined);
    }
    // the header may omit extensions when they are large; the body always has them
    if (header && !(prompt as { extensions?: unknown }).extensions) {
      try {
        prompt = { ...(prompt as object), ...(JSON.parse(text) as object) };
      } catch {
        // keep the header's prompt
      }
    }
    const parsed = AcquirePromptSchema.safeParse(prompt);
    if (!parsed.success)
      throw new MarketplaceError(402, 'unexpected_response', parsed.error.issues);
    return parsed.data;
  }
}

const AddressSchema = z.string().regex(/^0x[0-9a-fA-F]{40}$/);
const SkillsSignerSchema = z.object({
  // retired_signers: absent from a marketplace older than key rotation
  scan_attestation: z.object({
    signer: AddressSchema,
    retired_signers: z.array(AddressSchema).optional(),
  }),
});

/**
 * A price as the search route reads it: a plain decimal with at most 6 decimals (USDC's precision).
 * `String(n)` would write 1e-7 or 1e21, which the route refuses.
 */
function plainDecimal(n: number): string {
  return n.toFixed(6).replace(/\.?0+$/, '');
}
