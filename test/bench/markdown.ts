import { neutraliseUnsafeLinks } from '../../src/domain/items/markdown.js';
import { SEARCH_LIMITS } from '../../src/wire/items.js';

/**
 * `npm run bench -- markdown`: CPU of neutraliseUnsafeLinks per 2 kB description, for the shapes
 * a search page serves (SEARCH_LIMITS.results per page): plain prose (the fast path), prose with
 * links and code (parsed and judged), a README-like text with raw HTML badges (parsed, rendered,
 * tags read) and a hostile one (rewritten and judged again), each uncached (1024 distinct texts)
 * and for one page served again (the parsed-text cache). The baseline is the regex rewrite
 * the parser replaced (kept here only to measure against).
 */
const KB2 = 2048;
const fill = (unit: string) => unit.repeat(Math.ceil(KB2 / unit.length)).slice(0, KB2);

const SHAPES: Record<string, string> = {
  plain: fill(
    'A fast CSV parser for Node. Streams rows, infers types and reports errors per line. ',
  ),
  links: fill(
    'Parses CSV: see [the docs](https://example.com/docs) and [guide](./docs/guide.md); call `parse(text)`.\n\n',
  ),
  html_badges: fill(
    '<p align="center"><img src="https://img.shields.io/badge/ci-passing-green" alt="ci"></p>\n\nUsage: [api](https://example.com/api).\n\n',
  ),
  hostile: fill(
    '> [a]: javascript:alert(1)\n\n[click][a] <javascript:alert(2)> <a href="javascript:x">y</a>\n\n',
  ),
};

function regexBaseline(text: string): string {
  const safe = (dest: string) => {
    // eslint-disable-next-line no-control-regex
    const d = dest.replace(/\\(.)/g, '$1').replace(/[\u0000-\u0020\u007f]/g, '');
    if (/^(?:https?:|mailto:)/i.test(d)) return true;
    const first = /^[^/?#]*/.exec(d)![0];
    return !first.includes(':') && !first.includes('&');
  };
  return text
    .replace(
      /(\]\([ \t]*(?:\r?\n[ \t]*)?)((?:[^\s()]|\([^\s()]*\))+)/g,
      (_m, l: string, d: string) => (safe(d) ? l + d : `${l}#`),
    )
    .replace(
      /^([ \t]{0,3}\[[^\]\n]+\]:[ \t]*(?:\r?\n[ \t]*)?)(\S+)/gm,
      (_m, l: string, d: string) => (safe(d) ? l + d : `${l}#`),
    );
}

/** `distinct` inputs: 1024 outrun the parsed-text cache (cold), 20 are one page served again. */
function microsPerCall(fn: (s: string) => string, text: string, distinct: number): number {
  const inputs = Array.from({ length: distinct }, (_v, i) => `${text.slice(0, -6)} ${i}`);
  for (const s of inputs) fn(s);
  let calls = 0;
  const start = process.cpuUsage();
  const t0 = performance.now();
  while (performance.now() - t0 < 1000) {
    for (const s of inputs) fn(s);
    calls += inputs.length;
  }
  const used = process.cpuUsage(start);
  return (used.user + used.system) / calls;
}

export async function benchMarkdown(): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {
    description_bytes: KB2,
    results_per_page: SEARCH_LIMITS.results,
  };
  for (const [name, text] of Object.entries(SHAPES)) {
    const cold = microsPerCall(neutraliseUnsafeLinks, text, 1024);
    const repeat = microsPerCall(neutraliseUnsafeLinks, text, SEARCH_LIMITS.results);
    const regex = microsPerCall(regexBaseline, text, 1024);
    out[name] = {
      us_per_description: Number(cold.toFixed(1)),
      ms_per_search_page: Number(((cold * SEARCH_LIMITS.results) / 1000).toFixed(2)),
      us_per_description_page_served_again: Number(repeat.toFixed(1)),
      regex_us_per_description: Number(regex.toFixed(1)),
    };
    console.log(name, out[name]);
  }
  return out;
}
