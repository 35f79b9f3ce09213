import type { CorpusCase } from '../types.js';

/** Code-that-runs families: written on the content branch (issue 23); empty here. */
export const cases: CorpusCase[] = [];
