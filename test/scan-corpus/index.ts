import { cases as benign } from './families/benign.js';
import { cases as benignLookalikes } from './families/benign-secrets-lookalikes.js';
import { cases as bombs } from './families/bombs.js';
import { cases as code } from './families/code.js';
import { cases as links } from './families/links.js';
import { cases as names } from './families/names.js';
import { cases as polyglots } from './families/polyglots.js';
import { cases as secrets } from './families/secrets.js';
import { cases as smuggling } from './families/smuggling.js';
import { cases as traversal } from './families/traversal.js';
import type { CorpusCase } from './types.js';

export type { CorpusCase } from './types.js';

/** Every labelled case of the scan corpus (issue 23), hostile and benign, in a stable order. */
export const CORPUS: CorpusCase[] = [
  ...links,
  ...names,
  ...bombs,
  ...smuggling,
  ...polyglots,
  ...traversal,
  ...secrets,
  ...code,
  ...benign,
  ...benignLookalikes,
];

const dup = CORPUS.map((c) => c.name).find((n, i, all) => all.indexOf(n) !== i);
if (dup) throw new Error(`scan corpus: two cases named ${dup}`);
