import type { CorpusCase } from '../types.js';

/** Secrets family: written on the content branch (issue 23); empty here. */
export const cases: CorpusCase[] = [];
