/**
 * Secret detection on text lines. The rules name a kind ("private_key", "aws_access_key_id", …);
 * callers report the kind, the file and the line number, never the matched text.
 *
 * The content inspector only calls these rules on lines holding a long token-like run or a PEM
 * dash run (every rule below needs one), so scanning clean source costs almost nothing.
 */

interface Rule {
  kind: string;
  re: RegExp;
  /** Optional extra test on the first capture group (placeholders, entropy). */
  accept?: (value: string) => boolean;
}

const PLACEHOLDER =
  /example|sample|dummy|placeholder|your|changeme|xxxx|\*\*\*|<|\$\{|\{\{|redacted|fake|test/i;

const RULES: Rule[] = [
  {
    kind: 'private_key',
    re: /-----BEGIN (?:RSA |EC |DSA |OPENSSH |ENCRYPTED |PGP )?PRIVATE KEY(?: BLOCK)?-----/,
  },
  {
    kind: 'aws_access_key_id',
    re: /\b((?:AKIA|ASIA)[0-9A-Z]{16})\b/,
    accept: (v) => !/EXAMPLE$/.test(v),
  },
  {
    kind: 'aws_secret_access_key',
    re: /aws_?secret_?(?:access_?)?key["']?\s*[:=]\s*["']?([A-Za-z0-9/+=]{40})\b/i,
    accept: (v) => !PLACEHOLDER.test(v) && entropy(v) >= 3.5,
  },
  {
    kind: 'github_token',
    re: /\b((?:gh[pousr]_[A-Za-z0-9]{36,})|(?:github_pat_[A-Za-z0-9_]{50,}))\b/,
  },
  { kind: 'gitlab_token', re: /\b(glpat-[A-Za-z0-9_-]{20,})\b/ },
  { kind: 'slack_token', re: /\b(xox[abprs]-[A-Za-z0-9-]{20,})\b/ },
  { kind: 'stripe_live_key', re: /\b((?:sk|rk)_live_[0-9A-Za-z]{20,})\b/ },
  {
    kind: 'openai_style_key',
    re: /\b(sk-(?:proj-|ant-[a-z0-9]+-)?[A-Za-z0-9_-]{32,})\b/,
    accept: (v) => !PLACEHOLDER.test(v) && entropy(v) >= 3.5,
  },
  { kind: 'google_api_key', re: /\b(AIza[0-9A-Za-z_-]{35})\b/ },
  {
    kind: 'azure_storage_key',
    re: /AccountKey=([A-Za-z0-9+/=]{60,})/,
    accept: (v) => !PLACEHOLDER.test(v),
  },
  {
    kind: 'high_entropy_token',
    re: /(?:secret|token|passw(?:or)?d|api[_-]?key|access[_-]?key|private[_-]?key|auth[_-]?key|client[_-]?secret)[A-Za-z0-9_]*["']?\s*[:=]\s*["'`]([A-Za-z0-9+/_\-=.]{20,})["'`]/i,
    accept: looksRandom,
  },
];

/** The kind of secret on this line, if any. */
export function findSecret(line: string): string | undefined {
  for (const rule of RULES) {
    const m = rule.re.exec(line);
    if (!m) continue;
    const value = m[1] ?? m[0];
    if (!rule.accept || rule.accept(value)) return rule.kind;
  }
  return undefined;
}

/** Shannon entropy in bits per character. */
export function entropy(s: string): number {
  const counts = new Map<string, number>();
  for (const ch of s) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let h = 0;
  for (const c of counts.values()) {
    const p = c / s.length;
    h -= p * Math.log2(p);
  }
  return h;
}

/**
 * A token-looking value: long, mixing letters and digits (and, unless it is long hex, both cases),
 * with high entropy, and not an obvious placeholder.
 */
export function looksRandom(v: string): boolean {
  if (PLACEHOLDER.test(v)) return false;
  if (!/[0-9]/.test(v) || !/[A-Za-z]/.test(v)) return false;
  const isHex = /^[0-9a-f]+$/i.test(v);
  if (isHex) return v.length >= 32 && entropy(v) >= 3.3;
  if (!/[a-z]/.test(v) || !/[A-Z]/.test(v)) return false;
  return entropy(v) >= 3.7;
}
