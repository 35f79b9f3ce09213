import { createRequire } from 'node:module';
import type MarkdownIt from 'markdown-it';
import type { StateCore, StateInline, Token } from 'markdown-it';
import { BoundedCache } from '../../bounded-cache.js';

/**
 * Text shown to clients that may render it as Markdown (a README excerpt, a listing's
 * description) must not carry a link or tag that runs script or navigates somewhere unsafe:
 * `[x](javascript:…)`, `![x](data:…)`, `<javascript:…>`, `> [x]: vbscript:…`, `<a href=…>`,
 * `<img onerror=…>`, `<iframe>`, `<svg>`. A destination is kept only when it is http(s), mailto or
 * relative (read as a renderer would: escapes, entities, whitespace and control characters
 * undone); any other is replaced by `#` (a link's text stays).
 *
 * 0. Every line that reads as a definition (`[label]: dest`, up to 3 spaces in) outside fenced
 *    code gets `#` for an unsafe destination, even where CommonMark reads it as paragraph text
 *    (after a paragraph line): some renderers take it as a definition there.
 * 1. Fast path: without a `<` that could open a tag or autolink, when every run of text after a
 *    `](` or `]:` is a safe destination, no unsafe link can exist; the text is returned unparsed.
 * 2. The judge: markdown-it as a permissive renderer (raw HTML on, bare URLs linked, every
 *    scheme accepted) parses the text; every link, image and definition destination is checked
 *    (code spans and code blocks are text to it, so they are never touched), and when
 *    raw HTML is present the rendered page is read tag by tag as a browser would (so a tag opened
 *    in one block and closed in another is seen whole).
 * 3. When the judge objects, the destinations and tags it found are rewritten where the parser
 *    located them (definitions inside blockquotes and lists, autolinks, raw tags), and judged
 *    again; if anything still fails, every `\ [ ] <` is backslash-escaped so that a renderer shows
 *    the text without any link or tag, which is safe by construction (judged once more).
 */
export function neutraliseUnsafeLinks(input: string): string {
  const text = rewriteDefinitionLines(input);
  if (fastSafe(text)) return text;
  // the same descriptions come back page after page of search results
  return judged.get(text, neutraliseJudged);
}

/** Parsed texts and their outcome: the texts are at most a few kB (descriptions, excerpts). */
const judged = new BoundedCache<string, string>(256);

function neutraliseJudged(text: string): string {
  const parsed = parse(text, true);
  if (parsed.safe) return text;
  const targeted = rewriteFound(parsed);
  if (targeted !== null && judgeSafe(targeted)) return targeted;
  const escaped = escapeMarkup(targeted ?? text);
  if (judgeSafe(escaped)) return escaped;
  // not reached in practice: no markup left at all
  return text.replace(/[!-/:-@[-`{-~]/g, '\\$&');
}

const DEFINITION_LINE = /^([ \t]{0,3}\[[^\]\n]+\]:[ \t]*(?:\r?\n[ \t]*)?)(\S+)/gm;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/** Step 0, line by line: a fence opens and closes with the same character, at least as long. */
function rewriteDefinitionLines(text: string): string {
  if (!/^[ \t]{0,3}\[/m.test(text)) return text;
  let fence = '';
  let outside = '';
  let out = '';
  const flush = () => {
    out += outside.replace(DEFINITION_LINE, (_m, lead: string, dest: string) =>
      safeDestination(dest) ? lead + dest : `${lead}#`,
    );
    outside = '';
  };
  for (const line of text.split(/(?<=\n)/)) {
    const f = FENCE.exec(line)?.[1];
    if (fence) {
      out += line;
      if (f && f[0] === fence[0] && f.length >= fence.length && line.trim() === f) fence = '';
    } else if (f && !(f[0] === '`' && line.slice(line.indexOf(f) + f.length).includes('`'))) {
      flush();
      out += line;
      fence = f;
    } else outside += line;
  }
  flush();
  return out;
}

/**
 * Step 1: without `<` there is no raw HTML or autolink, bare URLs are linked only as http(s),
 * ftp or mailto, and every link destination follows a `](` or a definition's `]:` (then spaces,
 * a line break, a container's `>`): when each such run of text is safe, so is every destination
 * (a destination is a prefix of its run, so the check can only be stricter than the parser).
 * A `<` that cannot open a tag or an autolink (`a < b`, `<=`) does not count.
 */
function fastSafe(text: string): boolean {
  if (/<[A-Za-z!?/]/.test(text)) return false;
  // every `](` and `]:` starts a run of its own: a run is not consumed by the one before it
  // (`[![i](https://a)](javascript:…)`, `[a](https://a)[b](javascript:…)` have no space between).
  // Runs are read up to RUN characters (linear time); a longer one not plainly http(s) or mailto
  // goes to the judge.
  for (const m of text.matchAll(FAST_RUN)) {
    const run = m[1]!;
    // `](< javascript:…>)`: a pointy destination may begin with spaces a renderer trims
    if (run[0] === '<' || !safeDestination(run) || (run.length === RUN && !ALLOWED.test(run)))
      return false;
  }
  return true;
}

const ALLOWED = /^(?:https?:|mailto:)/i;
const RUN = 512;
const FAST_RUN = new RegExp(`(?=\\](?:\\(|:)[\\s>]*(<?[^\\s<]{0,${RUN}}))`, 'g');

function safeDestination(dest: string): boolean {
  // as a renderer reads it: backslash escapes undone; browsers also drop tabs and newlines
  // eslint-disable-next-line no-control-regex
  const d = dest.replace(/\\(.)/g, '$1').replace(/[\u0000-\u0020\u007f]/g, '');
  if (ALLOWED.test(d)) return true;
  const first = /^[^/?#]*/.exec(d)![0];
  return !first.includes(':') && !first.includes('&');
}

/** A URL as an HTML attribute holds it: entities decoded (also numeric ones without `;`). */
function safeAttributeUrl(value: string): boolean {
  const decoded = renderer().utils.unescapeAll(
    value.replace(/&#(x[0-9a-f]+|[0-9]+);?/gi, (_m, n: string) => {
      const code = n[0] === 'x' || n[0] === 'X' ? parseInt(n.slice(1), 16) : parseInt(n, 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : '\ufffd';
    }),
  );
  // a renderer's linkify makes ftp:// links of bare URLs: navigable, no script
  return safeDestination(decoded) || /^\s*ftp:\/\//i.test(decoded);
}

// ---------------------------------------------------------------------------------------------
// The judge

interface Found {
  /** The inline token being parsed, null while blocks are parsed. */
  inline: Token | null;
  /**
   * Destinations parsed: absolute positions (definitions), or positions in `src` (the inline
   * token's content (an image description's mapped to it)) and the inline token they were in.
   */
  destinations: Array<{
    inline: Token | null;
    src: string;
    start: number;
    end: number;
    /** As written (normalised only when the judge objected: rewriteFound). */
    dest: string;
  }>;
  /** Raw inline tags parsed, where the parser found them (as destinations). */
  tags: Array<{ inline: Token; src: string; start: number; end: number }>;
}

type Renderer = InstanceType<typeof MarkdownIt>;
let parser: Renderer | undefined;
/**
 * A permissive renderer: raw HTML, linkify, and every scheme accepted (validateLink). Loaded at
 * the first text the fast path cannot pass (~8 MB resident): an idle service never pays for it.
 */
function renderer(): Renderer {
  if (parser) return parser;
  const Ctor = createRequire(import.meta.url)('markdown-it') as typeof MarkdownIt;
  const md = new Ctor({ html: true, linkify: true });
  md.validateLink = () => true;
  const parseDestination = md.helpers.parseLinkDestination;
  (md.helpers as { parseLinkDestination: typeof parseDestination }).parseLinkDestination = (
    str: string,
    start: number,
    max: number,
  ) => {
    const res = parseDestination(str, start, max);
    const found = currentFound;
    if (res.ok && found) {
      const [src, at] = outermost(str, start);
      found.destinations.push({
        inline: found.inline,
        src,
        start: at,
        end: at + (res.pos - start),
        dest: res.str,
      });
    }
    return res;
  };
  // raw inline tags, noting where each one was found
  const rules = (
    md.inline.ruler as unknown as { __rules__: Array<{ name: string; fn: InlineRule }> }
  ).__rules__;
  const htmlInline = rules.find((r) => r.name === 'html_inline')!.fn;
  md.inline.ruler.at('html_inline', (state: StateInline, silent: boolean) => {
    const start = state.pos;
    const ok = htmlInline(state, silent);
    const found = currentFound;
    if (ok && !silent && found?.inline) {
      const [src, at] = outermost(state.src, start);
      found.tags.push({ inline: found.inline, src, start: at, end: at + (state.pos - start) });
    }
    return ok;
  });
  // an image's description is parsed on its own (a new source string): noting where it starts in
  // the source around it, what is found in it is located there too (no search of its block)
  const imageRule = rules.find((r) => r.name === 'image')!.fn;
  md.inline.ruler.at('image', (state: StateInline, silent: boolean) => {
    if (silent || !currentFound) return imageRule(state, silent);
    const outer = description;
    description = { src: state.src, at: state.pos + 2, outer };
    try {
      return imageRule(state, silent);
    } finally {
      description = outer;
    }
  });
  // the core `inline` rule, noting which inline token is being parsed
  md.core.ruler.at('inline', (state: StateCore) => {
    for (const tok of state.tokens) {
      if (tok.type !== 'inline') continue;
      if (currentFound) currentFound.inline = tok;
      state.md.inline.parse(tok.content, state.md, state.env, tok.children ?? (tok.children = []));
    }
    if (currentFound) currentFound.inline = null;
  });
  return (parser = md);
}
type InlineRule = (state: StateInline, silent: boolean) => boolean;
/** Set only while parse() notes what it finds (synchronously). */
let currentFound: Found | null = null;

/** The image descriptions being parsed, innermost first: where each starts in its outer source. */
interface Description {
  src: string;
  at: number;
  outer: Description | null;
}
let description: Description | null = null;

/**
 * `start` of `src` as a position in the outermost source being parsed: an image description's
 * source is the text between its brackets, which starts at `at` of the source around it.
 */
function outermost(src: string, start: number): [string, number] {
  for (let d = description; d; d = d.outer) {
    // inside d's description (its own source, which begins at d.at of d.src), or already in
    // d.src (the image rule reading its label there)
    if (src === d.src) continue;
    start += d.at;
    src = d.src;
  }
  return [src, start];
}

/** A text as markdown-it read it: its normalised source, its tokens and what was found where. */
interface Parsed {
  text: string;
  tokens: Token[];
  found: Found;
}

/**
 * Parses `input` (once: the judge and, when it objects, the rewrite read the same parse). With
 * `find`, the destinations and tags met are noted where they were found.
 */
function parse(input: string, find: boolean): Parsed & { safe: boolean } {
  // positions are those of markdown-it's normalised source (it normalises the same way)
  const text = input.replace(/\r\n?/g, '\n').replace(/\0/g, '\ufffd');
  const found: Found = { inline: null, destinations: [], tags: [] };
  const env: { references?: Record<string, { href: string; title: string }> } = {};
  const md = renderer();
  currentFound = find ? found : null;
  let tokens: Token[];
  try {
    tokens = md.parse(text, env);
  } finally {
    currentFound = null;
    description = null;
  }
  return { text, tokens, found, safe: tokensSafe(md, tokens, env) };
}

function judgeSafe(text: string): boolean {
  return parse(text, false).safe;
}

function tokensSafe(
  md: Renderer,
  tokens: Token[],
  env: { references?: Record<string, { href: string; title: string }> },
): boolean {
  // a definition is a link waiting for its reference, used or not
  for (const ref of Object.values(env.references ?? {}))
    if (!safeAttributeUrl(ref.href)) return false;
  let html = false;
  const check = (list: Token[]): boolean => {
    for (const t of list) {
      if (t.type === 'html_block' || t.type === 'html_inline') html = true;
      if (t.type === 'link_open' && !safeAttributeUrl(String(t.attrGet('href') ?? '')))
        return false;
      if (t.type === 'image' && !safeAttributeUrl(String(t.attrGet('src') ?? ''))) return false;
      if (t.children && !check(t.children)) return false;
    }
    return true;
  };
  if (!check(tokens)) return false;
  // raw HTML: read the whole rendered page as a browser would (a tag may span blocks)
  return !html || scanTags(md.renderer.render(tokens, md.options, {})).every((t) => !unsafeTag(t));
}

// ---------------------------------------------------------------------------------------------
// HTML tags, read as the WHATWG tokenizer reads them

interface Attr {
  name: string;
  value: string;
  start: number;
  end: number;
}
interface Tag {
  name: string;
  attrs: Attr[];
  start: number;
  end: number;
}

/** Elements that run script, embed or frame content, change the page's base or navigate. */
const DENIED = new Set(
  'script style iframe frame frameset object embed applet base meta link form svg math portal noscript isindex'.split(
    ' ',
  ),
);
/** Elements whose content is text up to their end tag. */
const RAW_TEXT = new Set('textarea title xmp noembed noframes'.split(' '));
/** Attributes holding a URL the browser may load or navigate to. */
const URL_ATTRS = new Set(
  'href src action formaction data poster background cite longdesc lowsrc dynsrc codebase archive classid manifest icon usemap'.split(
    ' ',
  ),
);

function unsafeAttr(a: Attr): boolean {
  const name = a.name.toLowerCase();
  if (name.startsWith('on') || name === 'srcdoc') return true;
  if (URL_ATTRS.has(name) || name.endsWith(':href')) return !safeAttributeUrl(a.value);
  if (name === 'srcset')
    return a.value.split(',').some((c) => !safeAttributeUrl(c.trim().split(/\s+/)[0] ?? ''));
  if (name === 'ping') return a.value.split(/\s+/).some((u) => u !== '' && !safeAttributeUrl(u));
  return false;
}

function unsafeTag(t: Tag): boolean {
  return DENIED.has(t.name) || t.attrs.some(unsafeAttr);
}

/** Start tags of `html` with their attributes (end tags, comments and raw text skipped). */
function scanTags(html: string): Tag[] {
  const tags: Tag[] = [];
  const n = html.length;
  let i = 0;
  const ws = (c: string | undefined) =>
    c === ' ' || c === '\t' || c === '\n' || c === '\f' || c === '\r';
  while (i < n) {
    const lt = html.indexOf('<', i);
    if (lt < 0) break;
    i = lt + 1;
    const c = html[i];
    if (c === '!') {
      if (html.startsWith('!--', i)) {
        if (html.startsWith('!-->', i)) i += 4;
        else if (html.startsWith('!--->', i)) i += 5;
        else {
          const a = html.indexOf('-->', i + 3);
          const b = html.indexOf('--!>', i + 3);
          const end = a < 0 ? b : b < 0 ? a : Math.min(a, b);
          i = end < 0 ? n : end + (end === a ? 3 : 4);
        }
      } else i = skipTo(html, '>', i);
      continue;
    }
    if (c === '?') {
      i = skipTo(html, '>', i);
      continue;
    }
    const endTag = c === '/';
    if (endTag) i++;
    if (!/[A-Za-z]/.test(html[i] ?? '')) {
      if (endTag) i = skipTo(html, '>', i);
      continue;
    }
    let j = i;
    while (j < n && !ws(html[j]) && html[j] !== '/' && html[j] !== '>') j++;
    const tag: Tag = { name: html.slice(i, j).toLowerCase(), attrs: [], start: lt, end: n };
    i = j;
    // attributes
    while (i < n) {
      while (i < n && (ws(html[i]) || html[i] === '/')) i++;
      if (i >= n) break;
      if (html[i] === '>') {
        i++;
        tag.end = i;
        break;
      }
      const aStart = i;
      i++; // the first character may be `=`
      while (i < n && !ws(html[i]) && html[i] !== '/' && html[i] !== '>' && html[i] !== '=') i++;
      const name = html.slice(aStart, i);
      let k = i;
      while (k < n && ws(html[k])) k++;
      let value = '';
      if (html[k] === '=') {
        k++;
        while (k < n && ws(html[k])) k++;
        const q = html[k];
        if (q === '"' || q === "'") {
          const close = html.indexOf(q, k + 1);
          value = html.slice(k + 1, close < 0 ? n : close);
          k = close < 0 ? n : close + 1;
        } else {
          const vStart = k;
          while (k < n && !ws(html[k]) && html[k] !== '>') k++;
          value = html.slice(vStart, k);
        }
        i = k;
      }
      tag.attrs.push({ name, value, start: aStart, end: i });
    }
    if (!endTag) {
      tags.push(tag);
      if (RAW_TEXT.has(tag.name)) {
        const close = html.toLowerCase().indexOf(`</${tag.name}`, i);
        i = close < 0 ? n : close;
      } else if (tag.name === 'plaintext') break;
    }
  }
  return tags;
}

function skipTo(html: string, ch: string, from: number): number {
  const k = html.indexOf(ch, from);
  return k < 0 ? html.length : k + 1;
}

/** The tag with unsafe attributes dropped or pointed at `#`; a denied element becomes text. */
function sanitiseTag(raw: string, tag: Tag): string {
  let out = '';
  let at = tag.start;
  for (const a of tag.attrs) {
    if (!unsafeAttr(a)) continue;
    out += raw.slice(at, a.start);
    const name = a.name.toLowerCase();
    if (URL_ATTRS.has(name) || name.endsWith(':href') || name === 'srcset' || name === 'ping') {
      out += `${a.name}="#"`;
    }
    at = a.end;
  }
  out += raw.slice(at, tag.end);
  return DENIED.has(tag.name) ? `&lt;${out.slice(1)}` : out;
}

// ---------------------------------------------------------------------------------------------
// Step 3: rewrite what the parser found, where it found it

interface Edit {
  start: number;
  end: number;
  text: string;
}

/** Distinct texts searched for in their blocks by one rewrite, at most (rewriteFound). */
const SEARCHES = 64;

/** The text with every unsafe destination and tag rewritten, or null when none was located. */
function rewriteFound({ text, tokens, found }: Parsed): string | null {
  // a table cell's inline token has no lines of its own: its row's are searched
  let row: Token | undefined;
  for (const t of tokens) {
    if (t.type === 'tr_open') row = t;
    else if (t.type === 'inline' && !t.map && row?.map) t.map = row.map;
  }
  const lineStarts = [0];
  for (let k = text.indexOf('\n'); k >= 0; k = text.indexOf('\n', k + 1)) lineStarts.push(k + 1);
  const span = (t: Token): [number, number] | null =>
    t.map ? [lineStarts[t.map[0]]!, lineStarts[t.map[1]] ?? text.length] : null;
  const edits: Edit[] = [];
  /** Where each line of an inline token's content starts in that content. */
  const contentLines = new Map<Token, number[]>();
  /**
   * Where `raw`, at `start` of inline token `t`'s content, is in `text`, or -1. A paragraph's
   * content is its lines with the container's markers and indentation cut from their starts and
   * the whole trimmed, so each content line ends where its source line does (the last one before
   * its trailing spaces). Checked: a heading's, a table cell's or a re-indented line's content
   * does not end there, and is searched for instead.
   */
  const locate = (t: Token, start: number, raw: string): number => {
    if (!t.map || raw === '') return -1;
    let starts = contentLines.get(t);
    if (!starts) {
      starts = [0];
      const c = t.content;
      for (let k = c.indexOf('\n'); k >= 0; k = c.indexOf('\n', k + 1)) starts.push(k + 1);
      contentLines.set(t, starts);
    }
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= start) lo = mid;
      else hi = mid - 1;
    }
    const line = t.map[0] + lo;
    if (line >= t.map[1] || line >= lineStarts.length) return -1;
    const contentEnd = lo + 1 < starts.length ? starts[lo + 1]! - 1 : t.content.length;
    let end = line + 1 < lineStarts.length ? lineStarts[line + 1]! - 1 : text.length;
    if (lo + 1 === starts.length)
      while (end > lineStarts[line]! && /\s/.test(text[end - 1]!)) end--;
    const at = end - (contentEnd - start);
    return at >= lineStarts[line]! && text.startsWith(raw, at) ? at : -1;
  };
  /** Blocks and texts already replaced: each is searched for once (N equal links: N, not N²). */
  const done = new Set<string>();
  /** Every occurrence of `raw` in the block of `t` becomes `by`. */
  let searches = 0;
  const replaceIn = (t: Token, raw: string, by: string) => {
    const s = span(t);
    if (!s || raw === '') return;
    const key = `${s[0]}\0${raw}`;
    if (done.has(key)) return;
    done.add(key);
    // each search reads its block: past SEARCHES distinct texts (only a hostile text has that
    // many unsafe links in headings) the rest is left to the escape
    if (++searches > SEARCHES) return;
    for (
      let k = text.indexOf(raw, s[0]);
      k >= 0 && k + raw.length <= s[1];
      k = text.indexOf(raw, k + 1)
    ) {
      edits.push({ start: k, end: k + raw.length, text: by });
    }
  };
  const tagsIn = (from: number, to: number) => {
    const slice = text.slice(from, to);
    for (const tag of scanTags(slice)) {
      if (unsafeTag(tag))
        edits.push({ start: from + tag.start, end: from + tag.end, text: sanitiseTag(slice, tag) });
    }
  };

  // each where the parser found it (a search of its block for each distinct text was N²)
  const place = (inline: Token, src: string, start: number, end: number, by: string) => {
    const raw = src.slice(start, end);
    const at = src === inline.content ? locate(inline, start, raw) : -1;
    if (at >= 0) edits.push({ start: at, end: at + raw.length, text: by });
    else replaceIn(inline, raw, by);
  };
  const md = renderer();
  for (const d of found.destinations) {
    if (safeAttributeUrl(md.normalizeLink(d.dest))) continue;
    if (d.inline === null) edits.push({ start: d.start, end: d.end, text: '#' });
    else place(d.inline, d.src, d.start, d.end, '#');
  }
  for (const h of found.tags) {
    const raw = h.src.slice(h.start, h.end);
    const tag = scanTags(raw)[0];
    if (tag && unsafeTag(tag)) place(h.inline, h.src, h.start, h.end, sanitiseTag(raw, tag));
  }
  for (const t of tokens) {
    if (t.type === 'html_block') {
      const s = span(t);
      if (s) tagsIn(s[0], s[1]);
    }
    for (const c of t.children ?? []) {
      if (
        c.type === 'link_open' &&
        c.markup === 'autolink' &&
        !safeAttributeUrl(String(c.attrGet('href') ?? ''))
      ) {
        // the CommonMark autolink grammar, within this block
        const s = span(t);
        if (!s || done.has(`${s[0]}\0<autolinks>`)) continue;
        done.add(`${s[0]}\0<autolinks>`);
        // eslint-disable-next-line no-control-regex
        const re = /<([A-Za-z][A-Za-z0-9.+-]{1,31}:[^<>\u0000-\u0020]*)>/g;
        re.lastIndex = s[0];
        for (let m = re.exec(text); m && m.index < s[1]; m = re.exec(text)) {
          if (!safeAttributeUrl(md.normalizeLink(md.utils.unescapeAll(m[1]!)))) {
            edits.push({ start: m.index, end: m.index + m[0].length, text: '#' });
          }
        }
      }
    }
  }
  if (edits.length === 0) return null;
  edits.sort((a, b) => a.start - b.start || b.end - a.end);
  let out = '';
  let at = 0;
  for (const e of edits) {
    if (e.start < at) continue; // overlapping: the first (outermost) wins
    out += text.slice(at, e.start) + e.text;
    at = e.end;
  }
  return out + text.slice(at);
}

/** Safe by construction: no `[`, `]` or `<` left to open a link, image, autolink or tag. */
function escapeMarkup(text: string): string {
  return text.replace(/[\\[\]<]/g, '\\$&');
}
