import { createHash } from 'node:crypto';
import type { RelevanceQuery } from './relevance-set.js';

export type Half = 'tuning' | 'held-out';
/**
 * The deterministic split of every relevance set's queries: by the first bit of the SHA-256 of the
 * query text. The ranking's constants are chosen on the tuning half only (`npm run bench --
 * relevance_tune`); the held-out half says whether they generalise.
 */
export function halfOf(q: Pick<RelevanceQuery, 'q'>): Half {
  return createHash('sha256').update(q.q).digest()[0]! & 1 ? 'held-out' : 'tuning';
}
