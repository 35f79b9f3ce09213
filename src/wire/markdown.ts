/**
 * Text shown to clients that may render it as Markdown (a README excerpt, a listing's
 * description) must not carry a link that runs script or smuggles content when clicked:
 * `[x](javascript:…)`, `![x](data:…)`, `[x]: vbscript:…`. Every link destination, inline
 * (`](dest`) or in a reference definition (`[label]: dest`), is kept only when it is http(s),
 * mailto or relative; any other is replaced by `#` (the link text stays). The check reads the
 * destination as a renderer would: backslash escapes, whitespace and control characters dropped;
 * a destination whose first segment holds `:` or `&` (an entity that could spell one) and is not
 * http(s)/mailto counts as another scheme.
 */
export function neutraliseUnsafeLinks(text: string): string {
  return (
    text
      // a destination may hold balanced parentheses (`javascript:alert(1)`): one level is read
      .replace(
        /(\]\([ \t]*(?:\r?\n[ \t]*)?)((?:[^\s()]|\([^\s()]*\))+)/g,
        (_m, lead: string, dest: string) => (safeDestination(dest) ? lead + dest : `${lead}#`),
      )
      .replace(
        /^([ \t]{0,3}\[[^\]\n]+\]:[ \t]*(?:\r?\n[ \t]*)?)(\S+)/gm,
        (_m, lead: string, dest: string) => (safeDestination(dest) ? lead + dest : `${lead}#`),
      )
  );
}

const ALLOWED = /^(?:https?:|mailto:)/i;

function safeDestination(dest: string): boolean {
  // as a renderer reads it: backslash escapes undone; browsers also drop tabs and newlines
  // eslint-disable-next-line no-control-regex
  const d = dest.replace(/\\(.)/g, '$1').replace(/[\u0000-\u0020\u007f]/g, '');
  if (ALLOWED.test(d)) return true;
  const first = /^[^/?#]*/.exec(d)![0];
  return !first.includes(':') && !first.includes('&');
}
