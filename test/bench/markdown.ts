import { neutraliseUnsafeLinks } from '../../src/domain/items/markdown.js';
import { SEARCH_LIMITS } from '../../src/wire/items.js';

/**
 * `npm run bench -- markdown`: CPU of neutraliseUnsafeLinks per 2 kB description, for the shapes
 * a search page serves (SEARCH_LIMITS.results per page): plain prose (the fast path), prose with
 * links and code (parsed and judged), a README-like text with raw HTML badges (parsed, rendered,
 * tags read) and a hostile one (rewritten and judged again), each uncached (1024 distinct texts)
 * and for one page served again (the parsed-text cache). The baseline is the regex rewrite
 * the parser replaced (kept here only to measure against). Then the hostile worst case at 64 kB
 * (WORST); `npx tsx test/bench/markdown.ts worst` runs that alone.
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

/**
 * The hostile worst case at 64 kB (a description or README excerpt at its largest): the same
 * unit repeated, and units that differ from each other (`javascript:1`, `javascript:2`, …: a
 * rewrite that searched its block once per distinct text was quadratic in them). Each is timed
 * at 16 kB and 64 kB (best of several, CPU time); `ratio` is the 64 kB time over four times the
 * 16 kB time: 1 is linear, 4 would be quadratic.
 */
const WORST: Record<string, (i: number) => string> = {
  repeated_links_and_tags: () => '[x](javascript:a) <b onclick=1> ![y](data:x) ',
  repeated_anchor_tags: () => '<a href="javascript:1">',
  distinct_links: (i) => `[x](javascript:${i}) `,
  distinct_tags: (i) => `<img src=x onerror=${i}>`,
  distinct_links_and_tags: (i) => `[x](javascript:${i}) <b onclick=${i}> ![y](data:${i}) `,
  // an image's description is parsed on its own: what is found there is located, not searched for
  distinct_links_in_image_descriptions: (i) => `![[x](javascript:${i})](y) `,
  links_in_long_image_descriptions: (i) =>
    i % 100 === 0 ? '![' : i % 100 === 99 ? '](y) ' : `[x](javascript:${i}) `,
};

function hostileText(unit: (i: number) => string, size: number, salt: number): string {
  let s = '';
  for (let i = 0; s.length < size; i++) s += unit(i);
  return `${s.slice(0, size - 8)} ${salt}`;
}

function bestMs(unit: (i: number) => string, size: number, reps: number): number {
  let best = Infinity;
  for (let r = 0; r < reps; r++) {
    const text = hostileText(unit, size, Math.random());
    const start = process.cpuUsage();
    neutraliseUnsafeLinks(text);
    const used = process.cpuUsage(start);
    best = Math.min(best, (used.user + used.system) / 1000);
  }
  return best;
}

function benchWorst(): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, unit] of Object.entries(WORST)) {
    const ms16 = bestMs(unit, 16384, 12);
    const ms64 = bestMs(unit, 65536, 6);
    out[name] = {
      ms_16kb: Number(ms16.toFixed(1)),
      ms_64kb: Number(ms64.toFixed(1)),
      ratio: Number((ms64 / (4 * ms16)).toFixed(2)),
    };
    console.log(`worst ${name}`, out[name]);
  }
  return out;
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
  out.worst_64kb = benchWorst();
  return out;
}

if (process.argv[1]?.endsWith('markdown.ts') && process.argv[2] === 'worst') benchWorst();
