import { createHash, createHmac, pbkdf2Sync } from 'node:crypto';
import { english, HDKey } from 'viem/accounts';

/**
 * Secret detection on text lines. The rules name a kind ("private_key", "aws_access_key_id", …);
 * callers report the kind, the file and the line number, never the matched text.
 *
 * The content inspector only calls these rules on lines that can hold a secret: a long token-like
 * run or a PEM dash run (every token rule needs one), or a run of twelve or more short lowercase
 * words (a mnemonic needs one), so scanning clean source costs almost nothing.
 */

interface Rule {
  /** The finding's stable rule id (`check`). */
  rule: string;
  kind: string;
  re: RegExp;
  /** Optional extra test on the first capture group (placeholders, entropy). */
  accept?: (value: string, match: string) => boolean;
}

/**
 * A value that stands in for a secret rather than being one, judged as a whole: it IS a
 * placeholder (`changeme`, `<token>`, `${API_KEY}`, `{{ secret }}`, `%(pw)s`, `xxxx…`, `****`,
 * `redacted`, `db.example.com`) or is made of placeholder words, fillers and separators
 * (`your_api_key_here`, `sk_test_your_key_here`, `InsertYourTokenHere`, `fake-secret-123456`),
 * with at most a quarter of it left unexplained. A long random value that merely contains one of
 * the words (`Xk9testQ2#pLm7vR`) is not a placeholder, nor are such words run together with a
 * number that is not a filler (`mysecretpassword1`, `MyPassword2024`).
 */
export function isPlaceholder(v: string): boolean {
  if (v === '') return true;
  let marked = false;
  let left = 0;
  // interpolations and angle-bracket names are fillers whatever they hold
  const rest = v.replace(STAND_IN_SYNTAX, () => {
    marked = true;
    return ' ';
  });
  for (const seg of rest.split(SEPARATORS)) {
    if (seg === '') continue;
    for (const word of seg.replace(/([a-z0-9])([A-Z])/g, '$1 $2').split(' ')) {
      if (word === '') continue;
      const w = word.toLowerCase();
      if (MARKER_WORD.test(w) || isFiller(w)) marked = true;
      else if (GENERIC_WORD.test(w)) continue;
      else {
        // run-together words (`testpass`, `YOURAPIKEYHERE`, `mysecret123`)
        const m = /^([a-z]+?)(\d*)$/.exec(w);
        if (m && joinedStandIn(m[1]!)) {
          // words and a number of one's own (`mysecretpassword1`, `Password2024`): how real
          // passwords are made, not a template's filler (`mysecret123`, `changeme0000`)
          if (m[2] && !isFiller(m[2])) return false;
          marked = true;
        } else left += word.length;
      }
    }
  }
  return marked && left * 4 <= v.length;
}

/** Whole words of three or more letters of MARKER_WORD and GENERIC_WORD, one a marker, run together. */
function joinedStandIn(w: string): boolean {
  // ok[i]: w[0, i) splits into words; 1 = without a marker yet, 2 = with one
  const ok = new Uint8Array(w.length + 1);
  ok[0] = 1;
  for (let i = 0; i < w.length; i++) {
    if (!ok[i]) continue;
    for (let j = i + 3; j <= w.length && j - i <= 12; j++) {
      const part = w.slice(i, j);
      const marker = MARKER_WORD.test(part);
      if (marker || GENERIC_WORD.test(part)) ok[j] = Math.max(ok[j]!, marker ? 2 : ok[i]!);
    }
  }
  return ok[w.length] === 2;
}

/** `${VAR}`, `$(cmd)`, `{{ x }}`, `%(name)s`, `<your key>`, `[TOKEN]`: a template's hole. */
const STAND_IN_SYNTAX =
  /\$\{[^{}]*\}|\$\([^()]*\)|\{\{[^{}]*\}\}|%\([\w.-]*\)[sdr]?|<[\w .:/@-]*>|\[[A-Z_ ]+\]/g;
const SEPARATORS = /[\s\-_.:/+=@,;|'"`()[\]{}<>!?#%&^~]+/;
/** Words that say a value is a stand-in: the value is a placeholder when it is made of them. */
const MARKER_WORD =
  /^(?:your|yours|my|here|goes|insert|enter|put|replace|replaceme|changeme|change|changeit|example|examples|sample|samples|dummy|placeholder|fake|test|testing|tests|redacted|removed|hidden|masked|todo|tbd|fixme|foo|bar|baz|qux|none|null|undefined|notset|unset|xxx|xyz|abc|abcd|abcdef|secretkey|apikey|mysecret|mypassword|password)$/;
/** Words that name what stands in (`your_API_KEY_here`): neither a sign nor unexplained. */
const GENERIC_WORD =
  /^(?:a|an|the|to|with|of|for|in|on|at|by|and|or|not|is|be|it|me|do|go|use|set|must|should|before|after|then|please|only|this|that|own|real|deploy|deploying|deployment|env|environment|config|default|unique|very|super|safe|actual|new|some|any|long|strong|random|generated|secret|secrets|pass|passwd|pwd|passphrase|key|keys|api|token|tokens|access|private|public|client|auth|oauth|app|application|account|user|username|name|id|value|string|str|db|database|host|hostname|server|service|project|org|live|prod|production|dev|development|staging|local|sk|pk|rk|proj|aws|github|gh|slack|stripe|openai|jwt|bearer|signing|encryption|session|cookie|django|insecure|webhook|url|com|org|net|io|local|mongodb|postgres|mysql|redis)$/;

/**
 * A filler: one character repeated (`xxxx`, `0000`, `****`), or ascending runs of three or more
 * (`123456`, `1234567890abcdef`, `abcdefgh`).
 */
function isFiller(w: string): boolean {
  if (w.length >= 3 && /^(.)\1+$/.test(w)) return true;
  if (w.length < 3) return false;
  let run = 1;
  for (let i = 1; i < w.length; i++) {
    const prev = w.charCodeAt(i - 1);
    const c = w.charCodeAt(i);
    if (c === prev + 1 || (prev === 57 && c === 48)) run++;
    else if (run < 3) return false;
    else run = 1;
  }
  return run >= 3;
}

const TOKEN = 'secret:token';
const NAMED = 'secret:named_value';

/** A private key block's kind from its header's words. */
const PEM_HEADER =
  /-----BEGIN ((?:RSA |EC |DSA |OPENSSH |ENCRYPTED |PGP |SSH2 ENCRYPTED )?PRIVATE KEY(?: BLOCK)?)-----|(PuTTY-User-Key-File-\d): /;

const RULES: Rule[] = [
  {
    rule: TOKEN,
    kind: 'aws_access_key_id',
    re: /\b((?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16})\b/,
    accept: (v) => !/EXAMPLE$/.test(v),
  },
  {
    rule: NAMED,
    kind: 'aws_secret_access_key',
    re: /aws_?secret_?(?:access_?)?key["']?\s*[:=]\s*["']?([A-Za-z0-9/+=]{40})\b/i,
    accept: (v) => !isPlaceholder(v) && entropy(v) >= 3.5,
  },
  {
    rule: TOKEN,
    kind: 'github_token',
    re: /\b((?:gh[pousr]_[A-Za-z0-9]{36,})|(?:github_pat_[A-Za-z0-9_]{50,}))\b/,
  },
  { rule: TOKEN, kind: 'gitlab_token', re: /(?<![\w-])(glpat-[A-Za-z0-9_-]{20,})\b/ },
  { rule: TOKEN, kind: 'slack_token', re: /(?<![\w-])(xox[abprse]-[A-Za-z0-9-]{20,})\b/ },
  {
    rule: TOKEN,
    kind: 'slack_webhook',
    re: /hooks\.slack\.com\/(?:services|workflows)\/(T[A-Z0-9]{6,}\/[A-Z0-9]{6,}\/[A-Za-z0-9]{16,})/,
  },
  { rule: TOKEN, kind: 'stripe_live_key', re: /\b((?:sk|rk)_live_[0-9A-Za-z]{20,})\b/ },
  {
    rule: TOKEN,
    kind: 'openai_style_key',
    re: /(?<![\w-])(sk-(?:proj-|ant-[a-z0-9]+-|svcacct-|admin-)?[A-Za-z0-9_-]{32,})\b/,
    accept: (v) => !isPlaceholder(v) && entropy(v) >= 3.5,
  },
  { rule: TOKEN, kind: 'google_api_key', re: /\b(AIza[0-9A-Za-z_-]{35})(?![\w-])/ },
  {
    rule: TOKEN,
    kind: 'npm_token',
    re: /\b(npm_[A-Za-z0-9]{36})\b/,
    accept: (v) => entropy(v) >= 3.5,
  },
  {
    rule: TOKEN,
    kind: 'huggingface_token',
    re: /\b(hf_[A-Za-z]{34})\b/,
    accept: (v) => entropy(v) >= 3.5,
  },
  {
    rule: TOKEN,
    kind: 'sendgrid_api_key',
    re: /\b(SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43})\b/,
  },
  {
    rule: TOKEN,
    kind: 'azure_storage_key',
    re: /AccountKey=([A-Za-z0-9+/=]{60,})/,
    accept: (v) => !isPlaceholder(v),
  },
  {
    rule: 'secret:npmrc_auth',
    kind: 'npm_auth_token',
    re: /(?:^|[\s:])_(?:authToken|auth|password)\s*=\s*["']?([^\s"']{16,})/,
    accept: (v) => !isPlaceholder(v) && !v.startsWith('$'),
  },
  {
    rule: NAMED,
    kind: 'django_secret_key',
    re: /\bSECRET_KEY\s*[:=]\s*[rbuRBU]?["']([^"'\s]{32,200})["']/,
    accept: djangoKey,
  },
  {
    rule: NAMED,
    kind: 'high_entropy_token',
    re: /(?:secret|token|passw(?:or)?d|api[_-]?key|access[_-]?key|private[_-]?key|auth[_-]?key|client[_-]?secret|credentials?)[A-Za-z0-9_]{0,64}["']?\s*[:=]\s*["'`]([A-Za-z0-9+/_\-=.]{20,})["'`]/i,
    accept: namedValue,
  },
];

/**
 * Name parts are bounded ({0,64}) and the separator has one shape per branch, so a hostile line
 * of keywords and spaces cannot make the engine try every split (it took minutes on 64 KiB).
 *
 * The same names as an unquoted value at the start of a line (`.env`, YAML, TOML, INI,
 * properties, `export NAME=value` in a shell script, Dockerfile `ENV`): only asked of config-like
 * files, where an unquoted word is a value rather than an identifier.
 */
const UNQUOTED_NAMED =
  /^\s*(?:export\s+|ENV\s+|-\s+)?["']?[A-Za-z0-9_.-]{0,64}(?:secret|token|passw(?:or)?d|api[_-]?key|access[_-]?key|private[_-]?key|auth[_-]?key|credentials?)[A-Za-z0-9_.-]{0,64}["']?(?:\s*[:=]\s*|\s+)["'`]?([A-Za-z0-9+/_\-=.]{20,})["'`]?\s*(?:[#;].*)?$/i;

/** A PEM header inside a string that ends right after it: code looking for one, not a key. */
function closedQuote(line: string, at: number, len: number): boolean {
  const q = line[at + len];
  return (q === '"' || q === "'" || q === '`') && line[at - 1] === q;
}

const PEM_RULE = 'secret:private_key_block';

function pemKind(header: RegExpExecArray): string {
  const words = header[1] ?? '';
  return header[2]
    ? 'putty_private_key'
    : words.startsWith('OPENSSH') || words.startsWith('SSH2')
      ? 'ssh_private_key'
      : words.startsWith('PGP')
        ? 'pgp_private_key'
        : 'private_key';
}

/**
 * A private key block is decided by its body, not its header: 40 or more base64 characters right
 * after the header on its line (past blanks and escaped line breaks: `"-----BEGIN …-----\nMIIE…"`),
 * or on one of the next lines (`PEM_BODY_WITHIN`: PGP and encrypted PEM put headers and a blank line
 * in between), quoted or not. A header with code after it (`'-----BEGIN …-----\n' + body`, an
 * f-string) builds or looks for a key.
 */
const PEM_BODY_AFTER = /^(?:\s|\\[rn])*[A-Za-z0-9+/]{40}/;
const PEM_BODY_WITHIN = 4;
/** A base64 run of 40+ characters mixing cases and digits (a body line, not a long word). */
function pemBodyLine(line: string): boolean {
  for (const m of line.matchAll(/[A-Za-z0-9+/]{40,}/g)) {
    const v = m[0];
    if (/[0-9]/.test(v) && /[a-z]/.test(v) && /[A-Z]/.test(v)) return true;
  }
  return false;
}
/** `-----BEGIN` in base64 (a whole PEM file encoded: Kubernetes secrets, CI variables). */
const PEM_BASE64 = /LS0tLS1CRUdJTi[A-Za-z0-9+/]{20,}/;

/** A base64-encoded private key block on the line: decoded, a header then a body line. */
function base64Pem(line: string): string | undefined {
  const m = PEM_BASE64.exec(line);
  if (!m) return undefined;
  const run = m[0].slice(0, 160);
  return decodedPem(Buffer.from(run.slice(0, run.length & ~3), 'base64').toString('latin1'));
}

/**
 * `-----BEGIN ` percent-encoded (a URL, a form body, an encoded variable): the space as `%20` or
 * `+`, the dashes as they are or `%2D`, then more of the run than a header alone.
 */
const PEM_URL = /(?:-|%2D){5}BEGIN(?:%20|\+)[^\s"'`&;,]{40,}/i;

/** A URL-encoded private key block on the line: decoded, a header then a body line. */
function urlPem(line: string): string | undefined {
  const m = PEM_URL.exec(line);
  if (!m) return undefined;
  // a form value's decoding (`+` is a space, a malformed or cut-off escape stays as it is)
  return decodedPem(new URLSearchParams(`v=${m[0].slice(0, 240)}`).get('v') ?? '');
}

/** `-----BEGIN` as hex digits, contiguous (`xxd -p`, a hex string) or `\x`-escaped (bytes literals). */
const PEM_HEX =
  /(?:(?:\\x)?2d){5}(?:\\x)?42(?:\\x)?45(?:\\x)?47(?:\\x)?49(?:\\x)?4e(?:(?:\\x)?[0-9a-f]{2}){40,}/i;

/** A hex-encoded private key block on the line: decoded, a header then a body line. */
function hexPem(line: string): string | undefined {
  const m = PEM_HEX.exec(line);
  if (!m) return undefined;
  const hex = m[0].slice(0, 960).replace(/\\x/gi, '');
  return decodedPem(Buffer.from(hex.slice(0, hex.length & ~1), 'hex').toString('latin1'));
}

/** A decoded run: a private key block's header at its start, then a body line (its kind). */
function decodedPem(decoded: string): string | undefined {
  const header = PEM_HEADER.exec(decoded);
  if (!header || header.index !== 0 || header[2]) return undefined;
  const body = decoded.slice(header[0].length);
  return /^\r?\n[A-Za-z0-9+/]{16}/.test(body) ? pemKind(header) : undefined;
}

const ESCAPED_HEX_DASHES = /\\x2d\\x2d/i;

/** `-----BEGIN` as hex digits, contiguous or `\x`-escaped: where a wrapped hex key block starts. */
const HEX_PEM_START = /(?:(?:\\x)?2d){5}(?:\\x)?42(?:\\x)?45(?:\\x)?47(?:\\x)?49(?:\\x)?4e/i;
/**
 * Lines a wrapped hex key block is followed over (`xxd -p` wraps at 60 digits: 4 lines hold a
 * header and a body line).
 */
const HEX_WRAP_LINES = 8;
/** Hex digits gathered before the block is decoded: a header (at most 40 bytes) and a body line. */
const HEX_WRAP_DIGITS = 2 * 72;

/**
 * The hex digits of a line that holds nothing else: a hex dump's line, or a piece of a bytes
 * literal split over lines (`b"\x2d\x2d…"`, quotes, commas, `+` and brackets between); undefined
 * when the line holds anything else.
 */
function hexPiece(text: string): string | undefined {
  const digits = text
    .replace(/\\x/gi, '')
    .replace(/(?<![0-9a-f])[bB](?=["'])/gi, '')
    .replace(/["'\s,+();\\]/g, '');
  return digits.length > 0 && /^[0-9a-fA-F]+$/.test(digits) ? digits : undefined;
}

/** A private key block on the line in one of the encodings above (base64, URL, hex). */
function encodedPem(line: string): string | undefined {
  if (line.includes('LS0tLS1CRUdJTi')) return base64Pem(line);
  if (line.includes('BEGIN%20') || line.includes('BEGIN+')) return urlPem(line);
  if (line.includes('2d2d2d2d2d') || line.includes('2D2D2D2D2D')) return hexPem(line);
  return undefined;
}

/** The kind and rule of the token on this line, if any (a private key block by its header). */
export function findSecret(line: string): { rule: string; kind: string } | undefined {
  const pem = line.includes('-----') || line.includes('PuTTY') ? PEM_HEADER.exec(line) : null;
  if (pem && !closedQuote(line, pem.index, pem[0].length))
    return { rule: PEM_RULE, kind: pemKind(pem) };
  return findToken(line);
}

/** The token rules alone (no private key block). */
function findToken(line: string): { rule: string; kind: string } | undefined {
  for (const rule of RULES) {
    const m = rule.re.exec(line);
    if (!m) continue;
    const value = m[1] ?? m[0];
    if (!rule.accept || rule.accept(value, m[0])) return { rule: rule.rule, kind: rule.kind };
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

/** Floors computed so far, by length and alphabet size (a few dozen in practice). */
const FLOORS = new Map<number, number>();

/**
 * The entropy a value of `n` characters drawn uniformly from `k` symbols falls below less than
 * once in a million draws: the plug-in entropy's exact mean (binomial counts per symbol) less
 * 5/√n, which bounds the lower tail measured over 2,000,000 draws for every alphabet and length
 * the rules see (62 symbols and 20 characters: mean 4.03, one in a million below 3.08, floor
 * 2.92; 16 symbols and 32: 3.61, 2.80, 2.73; 49 and 50: 4.81, 4.19, 4.11). A fixed threshold
 * cannot be right at every length: 3.7 missed 2.5 % of random 20-character keys, and 3.3 missed
 * 1.7 % of random 32-digit hex keys, the shortest lengths of their rules.
 */
export function entropyFloor(n: number, k: number): number {
  const key = n * 256 + k;
  const known = FLOORS.get(key);
  if (known !== undefined) return known;
  const p = 1 / k;
  let logC = 0; // ln C(n, x)
  let sum = 0; // E[X log2 X] for one symbol's count X ~ Binomial(n, 1/k)
  for (let x = 1; x <= n; x++) {
    logC += Math.log(n - x + 1) - Math.log(x);
    sum += Math.exp(logC + x * Math.log(p) + (n - x) * Math.log1p(-p)) * x * Math.log2(x);
  }
  const floor = Math.log2(n) - (k * sum) / n - 5 / Math.sqrt(n);
  if (FLOORS.size < 4096) FLOORS.set(key, floor);
  return floor;
}

/**
 * Entropy a random value of its length and alphabet shows: at least `usual` (the rule's own
 * threshold, which keeps out words and repeats in long values) or, for short values whose random
 * draws often fall under it, the floor above.
 */
function entropyOfRandom(v: string, k: number, usual: number): boolean {
  const h = entropy(v);
  return h >= usual || (v.length <= 512 && h >= entropyFloor(v.length, k));
}

/**
 * A token-looking value: long, mixing letters and digits (and, unless it is long hex, both cases),
 * with the entropy of a random draw, and not an obvious placeholder.
 */
export function looksRandom(v: string): boolean {
  if (isPlaceholder(v)) return false;
  if (!/[0-9]/.test(v) || !/[A-Za-z]/.test(v)) return false;
  const isHex = /^[0-9a-f]+$/i.test(v);
  if (isHex) return v.length >= 32 && entropyOfRandom(v.toLowerCase(), 16, 3.3);
  if (!/[a-z]/.test(v) || !/[A-Z]/.test(v)) return false;
  return entropyOfRandom(v, 62, 3.7);
}

/** A payment provider's test-mode key (Stripe's `sk_test_…`, `pk_test_…`): moves no money. */
const TEST_MODE_KEY = /^(?:sk|pk|rk)_test_/;

/** A value under a secret name that is a secret: random-looking, not a public development key. */
function namedValue(v: string, match: string): boolean {
  if (
    !looksRandom(v) ||
    TEST_MODE_KEY.test(v) ||
    /^0x[0-9a-fA-F]{40}$/.test(v) ||
    isPublicExampleJwt(v)
  )
    return false;
  const name = /^\s*(?:export\s+|ENV\s+|-\s+)?["']?([\w.-]+)/.exec(match)?.[1] ?? '';
  if (isExcludedName(name)) return false;
  const hex = v.startsWith('0x') ? v.slice(2) : v;
  return !(hex.length === 64 && /^[0-9a-fA-F]+$/.test(hex) && isPublicDevKey(hex));
}

/** A secret found in a file: the rule that found it, its kind and the 1-based line it is on. */
export interface SecretHit {
  rule: string;
  kind: string;
  line: number;
}

/**
 * The secret rules of one file, in line order. Beside the stateless rules of `findSecret`, the
 * wallet rules need the file: a `.env`-style file holds no hex key legitimately whatever its name,
 * a value alone on its line takes its name from the file, and an encrypted keystore spreads its
 * evidence (ciphertext, MAC) over several lines when pretty-printed.
 */
export class FileSecrets {
  private readonly envFile: boolean;
  /** A `.env`-style file that is not an example or template: every line is asked (`envLine`). */
  readonly realEnv: boolean;
  /** Config-like (env, YAML, TOML, INI, shell, Dockerfile): unquoted values count. */
  private readonly config: boolean;
  private readonly base: string;
  /** Documentation (Markdown, reStructuredText, AsciiDoc, plain text). */
  private readonly docs: boolean;
  private ciphertextLine = 0;
  private macLine = 0;
  /** A hex-encoded key header wrapped at its line's end: its line, the last line read, its digits. */
  private hexRun: { line: number; last: number; digits: string } | undefined;
  /** A private key header whose body is still to come (within PEM_BODY_WITHIN lines). */
  private pem: { line: number; kind: string } | undefined;
  /**
   * Keys under `apiKey`, held until the file shows whether each is a Firebase web config's (an
   * auth domain within FIREBASE_NEAR lines, before or after); the last auth domain's line.
   */
  private held: SecretHit[] = [];
  private firebaseLine = 0;
  /** The last JSON Web Key type seen (`kty`) and the last private member, for `jwkLine`. */
  private kty: { line: number; type: string } | undefined;
  private jwkPrivate: { line: number; member: string } | undefined;

  constructor(path: string) {
    this.base = path.slice(path.lastIndexOf('/') + 1);
    this.envFile = ENV_FILE.test(this.base);
    this.realEnv = this.envFile && !ENV_TEMPLATE.test(this.base);
    this.config = this.envFile || CONFIG_FILE.test(this.base);
    this.docs = /\.(?:md|markdown|mdx|rst|adoc|txt)$/i.test(this.base);
  }

  /** A line with backslash escapes: a private key block written as `\x2d\x2d…` bytes. */
  escapedLine(line: string, lineNo: number): SecretHit | undefined {
    const kind = ESCAPED_HEX_DASHES.test(line) ? hexPem(line) : undefined;
    return kind ? { rule: PEM_RULE, kind, line: lineNo } : this.wrappedHex(line, lineNo);
  }

  /**
   * A private key block in hex wrapped over lines (`xxd -p`, a bytes literal split across lines),
   * which no one line shows whole: from a line ending in a hex `-----BEGIN…`, the next lines' hex
   * digits are gathered until a header and a body line can be decoded (at the header's line).
   * Each line is read once, whichever rule asks first.
   */
  private wrappedHex(line: string, lineNo: number): SecretHit | undefined {
    if (this.hexRun?.last === lineNo) return undefined;
    if (this.hexRun && lineNo > this.hexRun.line + HEX_WRAP_LINES) this.hexRun = undefined;
    if (!this.hexRun) {
      const start = HEX_PEM_START.exec(line);
      const digits = start ? hexPiece(line.slice(start.index)) : undefined;
      if (digits) this.hexRun = { line: lineNo, last: lineNo, digits };
      return undefined;
    }
    const digits = hexPiece(line);
    if (!digits) {
      this.hexRun = undefined;
      return undefined;
    }
    const run = this.hexRun;
    run.last = lineNo;
    run.digits += digits;
    if (run.digits.length < HEX_WRAP_DIGITS) return undefined;
    this.hexRun = undefined;
    const hex = run.digits.slice(0, 960);
    const kind = decodedPem(Buffer.from(hex.slice(0, hex.length & ~1), 'hex').toString('latin1'));
    return kind ? { rule: PEM_RULE, kind, line: run.line } : undefined;
  }

  /** A line holding a long token-like run or a PEM dash run. */
  tokenLine(line: string, lineNo: number): SecretHit | undefined {
    const pem = this.pemLine(line, lineNo);
    if (pem) return pem;
    if (line.length >= 64 && hasHex64(line) && this.walletKey(line))
      return { rule: 'secret:wallet_key', kind: 'evm_private_key', line: lineNo };
    const keystore = this.keystore(line, lineNo);
    if (keystore) return keystore;
    const jwk = this.jwkLine(line, lineNo);
    if (jwk) return jwk;
    if (line.includes(FIREBASE_HOST)) {
      this.firebaseLine = lineNo;
      if (this.held.length) this.held = this.held.filter((h) => lineNo - h.line > FIREBASE_NEAR);
    }
    const found = findToken(line);
    if (found && FIREBASE_API_KEY.test(line)) {
      // public by design in a Firebase web config (next to its authDomain): decided at the end
      const near = this.firebaseLine > 0 && lineNo - this.firebaseLine <= FIREBASE_NEAR;
      if (!near && this.held.length < 5) this.held.push({ ...found, line: lineNo });
      return undefined;
    }
    // a bare 64-hex value under a key name in prose (docs, comments): an example, as above
    if (found && !(found.rule === NAMED && this.proseHex(line))) return { ...found, line: lineNo };
    if (this.config) {
      const m = UNQUOTED_NAMED.exec(line);
      if (m && namedValue(m[1]!, m[0]))
        return { rule: NAMED, kind: 'high_entropy_token', line: lineNo };
    }
    return undefined;
  }

  /** A line holding twelve or more consecutive words of 3 to 8 lowercase letters. */
  wordLine(line: string, lineNo: number): SecretHit | undefined {
    return findMnemonic(line)
      ? { rule: 'secret:mnemonic', kind: 'bip39_mnemonic', line: lineNo }
      : undefined;
  }

  /** A line holding `://`: a password inside a connection URL (`postgres://user:pass@host`). */
  urlLine(line: string, lineNo: number): SecretHit | undefined {
    const kind = urlPassword(line);
    return kind ? { rule: 'secret:url_credentials', kind, line: lineNo } : undefined;
  }

  /**
   * Any line of a real `.env` file (not `.env.example`): a value given to a password, secret,
   * token or API-key name that is neither a placeholder nor a well-known default, however short.
   */
  envLine(line: string, lineNo: number): SecretHit | undefined {
    const m = ENV_ASSIGNMENT.exec(line);
    if (!m) return undefined;
    const kind = envSecretKind(m[1]!);
    if (!kind) return undefined;
    let value = m[2]!.trim();
    const q = value[0];
    if (q === '"' || q === "'")
      value = value.slice(1, value.indexOf(q, 1) > 0 ? value.indexOf(q, 1) : undefined);
    else value = value.replace(/\s+#.*$/, '');
    return isRealPassword(value) ? { rule: NAMED, kind, line: lineNo } : undefined;
  }

  /** What the whole file decides: a key under `apiKey` with no Firebase auth domain near it. */
  end(): SecretHit | undefined {
    const first = this.held[0];
    this.held = [];
    return first;
  }

  /** A private key block: a header with its body on the line or on one of the next lines. */
  private pemLine(line: string, lineNo: number): SecretHit | undefined {
    if (this.pem && lineNo > this.pem.line + PEM_BODY_WITHIN) this.pem = undefined;
    const header = line.includes('-----') || line.includes('PuTTY') ? PEM_HEADER.exec(line) : null;
    if (header) {
      const kind = pemKind(header);
      const after = line.slice(header.index + header[0].length);
      if (header[2] || PEM_BODY_AFTER.test(after)) return { rule: PEM_RULE, kind, line: lineNo };
      this.pem = { line: lineNo, kind };
      return undefined;
    }
    if (this.pem) {
      if (line.includes('-----END')) this.pem = undefined;
      else if (pemBodyLine(line)) {
        const { line: at, kind } = this.pem;
        this.pem = undefined;
        return { rule: PEM_RULE, kind, line: at };
      }
    }
    const encoded = encodedPem(line);
    return encoded
      ? { rule: PEM_RULE, kind: encoded, line: lineNo }
      : this.wrappedHex(line, lineNo);
  }

  /**
   * A 64-hex value that could be a secp256k1 key, given to a secret-ish name
   * (`PRIVATE_KEY = "0x…"`, `signerKey: '0x…'`, `privateKeyToAccount('0x…')`, `--private-key 0x…`,
   * `PRIVATE_KEY=<hex>`, `private_key: <hex>`), or, 0x-prefixed or named, anywhere in a
   * `.env`-style file unless its name says it is a hash, address, slot…
   */
  private walletKey(line: string): boolean {
    let seen = 0;
    for (const m of line.matchAll(HEX64)) {
      if (++seen > 8) return false;
      const hex = m[2]!;
      if (!isKeyLike(hex)) continue;
      const prefixed = m[1] !== undefined;
      // a bare hex value in prose (docs, comments) is an example or a test vector
      if (!prefixed && !this.config && (this.docs || COMMENT.test(line))) continue;
      const name = assignedName(line, m.index);
      const secret =
        name !== undefined
          ? (prefixed || this.config
              ? isSecretName(name) || isWalletName(name)
              : isWalletName(name)) ||
            (this.envFile && !isExcludedName(name))
          : (prefixed && this.envFile) || (BARE_VALUE.test(line.trim()) && isSecretName(this.base));
      if (secret && !isPublicDevKey(hex)) return true;
    }
    return false;
  }

  private proseHex(line: string): boolean {
    return (
      !this.config &&
      (this.docs || COMMENT.test(line)) &&
      /(?<![\w$])[0-9a-fA-F]{64}(?![\w$])/.test(line)
    );
  }

  /**
   * A JSON Web Key with its private part: a `kty` and, within JWK_NEAR lines before or after (its
   * members come in any order: jose exports them sorted, `d` before `kty`), a private member of
   * that key type holding a base64url value (`d` of EC, OKP and RSA keys, RSA's primes and CRT
   * exponents, `k` of a symmetric `oct` key). Quoted or not (a JavaScript literal), escaped inside a
   * JSON string. A public key (no private member) is not one.
   */
  private jwkLine(line: string, lineNo: number): SecretHit | undefined {
    if (this.kty?.line === -1) return undefined; // already reported for this file
    if (line.includes('kty')) {
      const m = JWK_KTY.exec(line);
      if (m) this.kty = { line: lineNo, type: m[1]! };
    }
    for (const m of line.matchAll(JWK_PRIVATE)) {
      if (!isPlaceholder(m[2]!)) this.jwkPrivate = { line: lineNo, member: m[1]! };
    }
    const kty = this.kty;
    const priv = this.jwkPrivate;
    if (!kty || !priv || Math.abs(kty.line - priv.line) > JWK_NEAR) return undefined;
    if (!JWK_PRIVATE_MEMBERS[kty.type]!.includes(priv.member)) return undefined;
    this.kty = { line: -1, type: kty.type };
    return { rule: PEM_RULE, kind: 'jwk_private_key', line: priv.line };
  }

  /** Web3 Secret Storage (keystore v3): a hex `ciphertext` and a hex `mac`, on one line or two. */
  private keystore(line: string, lineNo: number): SecretHit | undefined {
    if (this.ciphertextLine < 0) return undefined; // already reported for this file
    if (!this.ciphertextLine && line.includes('ciphertext') && KEYSTORE_CIPHERTEXT.test(line))
      this.ciphertextLine = lineNo;
    if (!this.macLine && line.includes('mac') && KEYSTORE_MAC.test(line)) this.macLine = lineNo;
    if (!this.ciphertextLine || !this.macLine) return undefined;
    const at = this.ciphertextLine;
    this.ciphertextLine = -1;
    return { rule: 'secret:keystore', kind: 'wallet_keystore', line: at };
  }
}

/** A JWK's `kty` (RFC 7518 section 6.1 and RFC 8037's `OKP`), quoted, escaped or a bare JS key. */
const JWK_KTY = /(?<![\w$])\\?["']?kty\\?["']?\s*:\s*\\?["'`](EC|RSA|OKP|oct)\\?["'`]/;
/** A private member with a base64url value of 22+ characters (128 bits: the shortest `oct` key). */
const JWK_PRIVATE =
  /(?<![\w$-])\\?["']?(d|k|p|q|dp|dq|qi)\\?["']?\s*:\s*\\?["'`]([A-Za-z0-9_-]{22,})={0,2}\\?["'`]/g;
const JWK_PRIVATE_MEMBERS: Record<string, string[]> = {
  EC: ['d'],
  OKP: ['d'],
  RSA: ['d', 'p', 'q', 'dp', 'dq', 'qi'],
  oct: ['k'],
};
/** How far apart a key's `kty` and its private member may be (a pretty-printed RSA key). */
const JWK_NEAR = 12;

/** `.env`, `.env.local`, `.env.production`, `prod.env`, `.envrc`, … */
const ENV_FILE = /^\.env(?:\..+)?$|.\.env$|^\.envrc$/i;
/** …of which these are examples and templates, where placeholders are expected. */
const ENV_TEMPLATE = /example|sample|template|tpl|dist|default|schema|skel/i;
const CONFIG_FILE =
  /\.(?:ya?ml|toml|ini|cfg|conf|properties|sh|bash|zsh|envrc)$|^(?:Dockerfile.*|\.npmrc|\.pypirc|\.yarnrc(?:\.yml)?)$/i;
const HEX64 = /(?<![\w$])(0x)?([0-9a-fA-F]{64})(?![\w$])/g;
const COMMENT = /^\s*(?:\*|\/\/|#|--|;|<!--)/;
/** A Firebase web config: its `apiKey` is public by design, next to the project's auth domain. */
const FIREBASE_HOST = 'firebaseapp.com';
const FIREBASE_API_KEY = /\bapiKey["']?\s*[:=]\s*["'`]AIza/;
const FIREBASE_NEAR = 10;

/**
 * Secrets published as documentation examples (jwt.io signs its example tokens with this one):
 * a JWT that verifies with one of them is an example, not a credential.
 */
const PUBLIC_JWT_SECRETS = ['your-256-bit-secret'];

function isPublicExampleJwt(v: string): boolean {
  const parts = v.split('.');
  if (parts.length !== 3 || !v.startsWith('eyJ')) return false;
  const signed = `${parts[0]}.${parts[1]}`;
  return PUBLIC_JWT_SECRETS.some(
    (k) => createHmac('sha256', k).update(signed).digest('base64url') === parts[2],
  );
}

/** Django's `get_random_secret_key()` draws 50 characters from 50 symbols: a-z, 0-9 and `!@#$%^&*(-_=+)`. */
const DJANGO_ALPHABET = 50;

/**
 * Django's SECRET_KEY: `django-insecure-…` as startproject writes it, or a random value; not a
 * placeholder (`isPlaceholder`, the value as a whole) or a template (`{{ … }}`, `{}`; Django's own
 * alphabet has no braces).
 */
function djangoKey(v: string): boolean {
  if (v.includes('{') || isPlaceholder(v)) return false;
  return v.startsWith('django-insecure-')
    ? v.length >= 40
    : entropyOfRandom(v, DJANGO_ALPHABET, 4.2);
}

/**
 * A run of 64 hex digits somewhere on the line: looks at the last character of each window of 64
 * and walks back only while hex (a non-hex character rules out every window holding it).
 */
function hasHex64(line: string): boolean {
  let p = 0;
  while (p + 64 <= line.length) {
    let j = p + 63;
    while (j >= p && isHexCode(line.charCodeAt(j))) j--;
    if (j < p) return true;
    p = j + 1;
  }
  return false;
}

function isHexCode(c: number): boolean {
  const l = c | 32;
  return (c >= 48 && c <= 57) || (l >= 97 && l <= 102);
}
/** A value alone on its line (a key file, one entry of a JSON list). */
const BARE_VALUE = /^["'`]?(?:0x)?[0-9a-fA-F]{64}["'`]?,?$/;
const KEYSTORE_CIPHERTEXT = /\bciphertext["']?\s*:\s*["'][0-9a-fA-F]{32,}["']/;
const KEYSTORE_MAC = /\bmac["']?\s*:\s*["'][0-9a-fA-F]{64}["']/;

const ENV_ASSIGNMENT = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*=\s*(.*)$/;
const ENV_SECRET_WORD =
  /^(?:password|passwd|pwd|pass|passphrase|secret|secrets|token|tokens|apikey|credentials?)$/;
/** Names that hold a setting about a secret rather than the secret (`PASSWORD_MIN_LENGTH`). */
const ENV_SETTING_WORD =
  /^(?:hash|hashes|algo|algorithm|length|len|min|max|ttl|expiry|expires|expiration|lifetime|file|path|dir|header|name|type|policy|rounds|cost|url|uri|endpoint|host|port|enabled|enable|disable|disabled|required|mode|version|prefix|id|user|username|issuer|audience|env|var|field|param|key(?:name|id))$/;

function envSecretKind(name: string): string | undefined {
  const words = nameWords(name);
  if (words.some((w) => ENV_SETTING_WORD.test(w) || EXCLUDED_WORD.test(w))) return undefined;
  if (words.some((w) => /^(?:password|passwd|pwd|pass|passphrase)$/.test(w))) return 'password';
  const apiKey = words.some((w, i) => w === 'apikey' || (w === 'api' && words[i + 1] === 'key'));
  if (apiKey) return 'api_key';
  if (words.some((w) => ENV_SECRET_WORD.test(w)))
    return words.includes('token') ? 'token' : 'secret';
  return undefined;
}

/** Defaults of local services and docs: not secrets (`postgres:postgres`, `guest:guest`). */
const DEFAULT_PASSWORDS = new Set(
  (
    'password pass passwd postgres postgresql root admin secret guest mysql mariadb redis user ' +
    'mongo mongodb rabbitmq sa dev development local docker pwd passw0rd password1 password123 ' +
    'default demo none null nil empty toor letmein qwerty 1234 12345 123456 12345678 test testing ' +
    'app keycloak minio minioadmin airflow grafana elastic changeit'
  ).split(' '),
);

/** A value that is a real password or secret: not empty, a placeholder, a default or a number. */
function isRealPassword(v: string): boolean {
  if (v.length < 6 || isPlaceholder(v) || TEST_MODE_KEY.test(v) || /^[$%@]/.test(v)) return false;
  if (DEFAULT_PASSWORDS.has(v.toLowerCase())) return false;
  if (/^(?:\d+|true|false|yes|no|on|off)$/i.test(v)) return false;
  if (/^[a-z]+(?:[-_ ][a-z]+)*$/.test(v)) return false; // lowercase words: a setting or a default
  return v.length >= 8 || /\d/.test(v);
}

const URL_CREDENTIALS =
  /\b([a-z][a-z0-9+.-]{1,20}):\/\/([^\s:@/'"`<>]{0,64}):([^\s@/'"`<>]{1,128})@([^\s/:'"`<>?#,;)]+)/gi;

/** `<scheme>_url_password` for a real password inside a connection URL, or undefined. */
function urlPassword(line: string): string | undefined {
  if (!line.includes('@')) return undefined;
  for (const m of line.matchAll(URL_CREDENTIALS)) {
    const [, scheme, user, pass, host] = m as unknown as [string, string, string, string, string];
    if (pass === user || !isRealUrlPassword(pass)) continue;
    // in web and file URLs (docs, tests) only a random-looking password counts
    if (
      /^(?:https?|ftps?|wss?)$/i.test(scheme) &&
      !(pass.length >= 12 && /\d/.test(pass) && /[A-Za-z]/.test(pass))
    )
      continue;
    if (isPlaceholderHost(host) || /^(?:host|hostname|server)$/i.test(host)) continue;
    const s = scheme
      .toLowerCase()
      .replace(/\+.*$/, '')
      .replace(/^postgresql$/, 'postgres');
    return `${/^[a-z0-9]+$/.test(s) ? s : 'url'}_url_password`;
  }
  return undefined;
}

/**
 * A connection URL's host that is a stand-in: a placeholder (`your-db-host`, `<host>`, `${HOST}`)
 * or a domain reserved for documentation (`example.com`, `db.example.org`, `*.example`, `.test`,
 * `.invalid`, RFC 2606).
 */
function isPlaceholderHost(host: string): boolean {
  const name = host.replace(/:\d+$/, '');
  return (
    isPlaceholder(name) ||
    /(?:^|\.)(?:example\.(?:com|org|net)|example|test|invalid)$/i.test(name) ||
    name.split(/[.-]/).some((label) => STAND_IN_LABEL.test(label))
  );
}
const STAND_IN_LABEL =
  /^(?:example|sample|your|yourhost|placeholder|dummy|fake|redacted|host|hostname|xxx+)$/i;

function isRealUrlPassword(v: string): boolean {
  if (v.length < 3 || isPlaceholder(v) || /^[$%{:[*]/.test(v)) return false;
  return !DEFAULT_PASSWORDS.has(decodeURIComponentSafe(v).toLowerCase());
}

function decodeURIComponentSafe(v: string): string {
  try {
    return decodeURIComponent(v);
  } catch {
    return v;
  }
}

/** Order of the secp256k1 group: a private key is in [1, n). */
const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

/**
 * A 64-hex value that looks like a key rather than a constant: in range, with the entropy of
 * random hex (zero-padded numbers, `deadbeef…` and other repeats fall out).
 */
function isKeyLike(hex: string): boolean {
  if (!entropyOfRandom(hex.toLowerCase(), 16, 3.3)) return false;
  for (let p = 1; p <= 32; p++) if (hex.slice(p) === hex.slice(0, hex.length - p)) return false;
  const k = BigInt('0x' + hex);
  return k > 0n && k < SECP256K1_N;
}

/**
 * The name a value at `at` is given to on its line: the identifier before `=`, `:`, `:=`, `=>`,
 * `??`, `||` or `(` (with quotes, a closing bracket and a type annotation in between:
 * `env["KEY"] = `, `"key": `, `const key: Hex = `), a command-line flag (`--private-key 0x…`) or
 * an XML element (`<privateKey>0x…`).
 */
function assignedName(line: string, at: number): string | undefined {
  const left = line.slice(Math.max(0, at - 120), at);
  const m = ASSIGNED.exec(left) ?? FLAG.exec(left) ?? ELEMENT.exec(left);
  if (!m) return undefined;
  const name = m[1]!;
  return name.slice(name.lastIndexOf('.') + 1);
}

const ASSIGNED =
  /(?:^|[^\w$.-])([A-Za-z_$][\w$.-]*)["'`]?\]?\s*(?::[^=:;,(){}"'`]{1,40})?(?::=|\?=|=>|\?\?|\|\||=|:|\()\s*\[?\s*["'`]?$/;
const FLAG = /(?:^|\s)--?([A-Za-z][\w-]*)\s+["']?$/;
const ELEMENT = /<([A-Za-z_][\w.-]*)[^<>]*>\s*$/;

/** Words of an identifier: snake, kebab, camel and Pascal case, digits dropped. */
function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z]+/)
    .filter(Boolean);
}

/** Words that make a name a secret's: `PRIVATE_KEY`, `signerKey`, `WALLET_SECRET`, `seed`, … */
const SECRET_WORD = /^(?:[a-z]*keys?|secrets?|private|priv|signer|seed|mnemonic)$/;
/** Words that make it something public even beside a secret word: `keyHash`, `publicKey`, … */
const EXCLUDED_WORD =
  /^(?:pub|public|pubkeys?|publickeys?|xpub|[a-z]*hash(?:es)?|digests?|checksums?|sha|keccak|blake|ripemd|integrity|address(?:es)?|addr|roles?|slots?|root|salt|ids?|uuid|txid|txn?|topics?|selectors?|separator|nonce|commitment|storage|cache|block)$/;

export function isSecretName(name: string): boolean {
  const words = nameWords(name);
  return words.some((w) => SECRET_WORD.test(w)) && !words.some((w) => EXCLUDED_WORD.test(w));
}

/** Names that hold a wallet key (a bare hex value in source code needs one of these words). */
function isWalletName(name: string): boolean {
  const words = nameWords(name);
  return (
    words.some((w) =>
      /^(?:private|priv|pk|signer|wallet|mnemonic|seed|secret|deployer|accounts)$/.test(w),
    ) && !words.some((w) => EXCLUDED_WORD.test(w))
  );
}

function isExcludedName(name: string): boolean {
  return nameWords(name).some((w) => EXCLUDED_WORD.test(w));
}

/**
 * Mnemonics published as development defaults and test vectors: Hardhat's and Anvil's
 * `test … junk`, Ganache's deterministic one, and the first BIP-39 test vector. They and the first
 * accounts derived from them (m/44'/60'/0'/0/i) are public, so projects may ship them.
 */
const PUBLIC_MNEMONICS = new Set([
  'test test test test test test test test test test test junk',
  'myth like bonus scare over problem client lizard pioneer submit female collect',
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about',
]);
/** Hardhat's and Anvil's 20 default accounts (`test … junk`, m/44'/60'/0'/0/0..19), as data. */
export const HARDHAT_ACCOUNT_KEYS: readonly string[] = [
  'ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  '59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  '5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
  '7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6',
  '47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a',
  '8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba',
  '92db14e403b83dfe3df233f83dfa3a0d7096f21ca9b0d6d6b8d88b2b4ec1564e',
  '4bbbf85ce3377467afe5d46f804f221813b2bb87f24d81f60f1fcdbf7cbf4356',
  'dbda1821b80551c9d65939329250298aa3472ba22feea921c0cf5d620ea67b97',
  '2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6',
  'f214f2b2cd398c806f84e317254e0f0b801d0643303237d97a22a48e01628897',
  '701b615bbdfb9de65240bc28bd21bbc0d996645a3dd57e7b12bc2bdf6f192c82',
  'a267530f49f8280200edf313ee7af6b827f2a8bce2897751d06a843f644967b1',
  '47c99abed3324a2707c28affff1267e45918ec8c3f20b8aa892e8b065d2942dd',
  'c526ee95bf44d8fc405a158bb884d9d1238d99f0612e9f33d006bb0789009aaa',
  '8166f546bab6da521a8369cab06c5d2b9e46670292d85c875ee9ec20e84ffb61',
  'ea6c44ac03bff858b476bba40716402b03e41b8e97e276d1baec7c37d42484a0',
  '689af8efa8c651a91ad287602527f3af2fe9f6501a7ac4b061667b5a93e037fd',
  'de9be858da4a475276426320d5e9262ecfc3ba460bfac56360bfa6c4c28b4ee0',
  'df57089febbacf7ba0bc227dafbffa9fc08a93fdc68e1e42411a14efcf23656e',
];
const PUBLIC_ACCOUNTS = 20;
let publicKeys: Set<string> | undefined;

/** One of the public development keys (the others derived once, on first need). */
function isPublicDevKey(hex: string): boolean {
  const lower = hex.toLowerCase();
  if (HARDHAT_ACCOUNT_KEYS.includes(lower)) return true;
  publicKeys ??= new Set(
    [...PUBLIC_MNEMONICS].slice(1).flatMap((m) => {
      const seed = pbkdf2Sync(m, 'mnemonic', 2048, 64, 'sha512');
      const parent = HDKey.fromMasterSeed(seed).derive("m/44'/60'/0'/0");
      return Array.from({ length: PUBLIC_ACCOUNTS }, (_, i) =>
        Buffer.from(parent.deriveChild(i).privateKey!).toString('hex'),
      );
    }),
  );
  return publicKeys.has(lower);
}

const WORD_INDEX = new Map(english.map((w, i) => [w, i]));
const MNEMONIC_LENGTHS = new Set([12, 15, 18, 21, 24]);
/** Between the words of a phrase: spaces, or the quotes and commas of a list. */
const PHRASE_GAP = /^[\s"',]+$/;
const QUOTE_OR_COMMA = /["',]/;
/** A phrase is a whole value: it starts after one of these (or at the line start)… */
const PHRASE_OPEN = new Set(['=', ':', '(', '[', '{', '"', "'", '`', ',', '>', '#', '/']);
/** …and ends before one of these (or at the line end). */
const PHRASE_CLOSE = new Set(['"', "'", '`', ')', ']', '}', ',', ';', '#']);

/**
 * A BIP-39 English phrase on the line: 12, 15, 18, 21 or 24 consecutive words of the list that
 * make up a whole value (`MNEMONIC="…"`, `seed: …`, a line of its own, a JSON list), with a valid
 * checksum, so that prose made of common words does not count; public phrases excepted.
 */
function findMnemonic(line: string): boolean {
  let words: string[] = [];
  let start = 0;
  let end = 0;
  const phrase = (): boolean =>
    MNEMONIC_LENGTHS.has(words.length) &&
    opens(line, start) &&
    closes(line, end) &&
    !PUBLIC_MNEMONICS.has(words.join(' ')) &&
    validChecksum(words);
  const close = (): boolean => {
    const found = phrase();
    words = [];
    return found;
  };
  for (const m of line.matchAll(/[A-Za-z0-9]+/g)) {
    const word = m[0];
    if (words.length) {
      const gap = line.slice(end, m.index);
      if (!PHRASE_GAP.test(gap)) {
        if (close()) return true;
      } else if (QUOTE_OR_COMMA.test(gap) && phrase()) {
        // a whole value ends here (`'…', network_id: 1`) though a list word follows
        return true;
      }
    }
    if (WORD_INDEX.has(word)) {
      if (!words.length) start = m.index;
      words.push(word);
      end = m.index + word.length;
    } else if (words.length && close()) {
      return true;
    }
  }
  return words.length > 0 && close();
}

function opens(line: string, at: number): boolean {
  let i = at - 1;
  while (i >= 0 && (line[i] === ' ' || line[i] === '\t')) i--;
  return i < 0 || PHRASE_OPEN.has(line[i]!);
}

function closes(line: string, at: number): boolean {
  let i = at;
  while (i < line.length && (line[i] === ' ' || line[i] === '\t' || line[i] === '\r')) i++;
  return i >= line.length || PHRASE_CLOSE.has(line[i]!);
}

/** BIP-39: the last words/3 bits are the first bits of the SHA-256 of the entropy before them. */
function validChecksum(words: string[]): boolean {
  let n = 0n;
  for (const w of words) n = (n << 11n) | BigInt(WORD_INDEX.get(w)!);
  const csBits = words.length / 3;
  const entropyHex = (n >> BigInt(csBits)).toString(16).padStart((words.length * 32) / 12, '0');
  const hash = createHash('sha256').update(Buffer.from(entropyHex, 'hex')).digest();
  return hash[0]! >> (8 - csBits) === Number(n & ((1n << BigInt(csBits)) - 1n));
}
