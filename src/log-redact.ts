/**
 * Log redaction at any depth. A review's text, a payment or identity signature, a secret or an
 * API key can sit anywhere in a logged object: an error carrying a facilitator's answer or a
 * request body (`err.data.paymentPayload.payload.signature`), an AppError's details, an MCP tool's
 * extra fields. Pino's path redaction names fixed depths, so the finished JSON line is redacted
 * instead: every value under one of these keys, at whatever depth, becomes "[redacted]".
 *
 * A secret can also be spelled out inside a string: a message or an error's text that quotes a
 * header, a key or the calldata of a failed call. Inside every string value the known shapes of a
 * secret are replaced by "[redacted]" too: 32 bytes of hex (a private key), 64 bytes or more of
 * hex (a 65-byte signature, calldata carrying one), a bearer token's credential and a Revision A
 * API key's secret part (its key id, not a secret, stays). 32 bytes of hex are also a transaction
 * hash, a digest or a nonce: they stay when their key or the few words before them say so
 * (`txHash`, `sha256`, "transaction 0x…"). Review text has no shape: only its key finds it.
 *
 * That exception cannot tell a private key from a hash by its look: both are 32 random bytes. So
 * the values known to be secrets of this process (its configured private keys, tokens and keys,
 * the keys it generated, the MCP wallet's key: registerSecret) are redacted wherever they appear,
 * under any key (`hash`, `nonce`), inside any string or word, in either case, with or without
 * `0x`. A private key of someone else, logged under a hash's name, still looks like a hash and
 * stays (docs/operating.md, Logs).
 *
 * It costs one regular-expression test on a line with neither such a key nor such a shape (the
 * request line), and a scan of the line's strings otherwise. No dependency: the MCP server's
 * stderr log uses it too.
 */

/** The keys whose values never reach a log line, at any depth. */
export const REDACTED_KEYS = ['text', 'signature', 'secret', 'apiKey'] as const;

export const CENSOR = '[redacted]';

const KEYS = new Set<string>(REDACTED_KEYS);

/** Known secrets that are hex of 32 bytes or more: lower case, no `0x` (found by hasHexRun). */
const knownHex = new Set<string>();
/** Any of them in a line, either case, with its `0x` (rebuilt when one is registered). */
let knownHexPattern: RegExp | undefined;
/** Other known secrets, as JSON writes them inside a string. */
const knownText = new Set<string>();

/** The shortest value registerSecret takes: shorter ones would redact ordinary words. */
const MIN_SECRET_LENGTH = 12;

/**
 * Makes `value` (a key, token or password of this process, or key bytes) a known secret: from now
 * on every log line written through redactJsonLine has it replaced by "[redacted]" wherever it
 * appears. Key bytes are known by their hex. Process-wide, as the log stream is. Values shorter
 * than 12 characters are ignored.
 */
export function registerSecret(value: string | Uint8Array | undefined): void {
  if (value === undefined) return;
  const text = typeof value === 'string' ? value : Buffer.from(value).toString('hex');
  const hex = /^(?:0[xX])?([0-9a-fA-F]{64,})$/.exec(text);
  if (hex) {
    const bare = hex[1]!.toLowerCase();
    if (knownHex.has(bare)) return;
    knownHex.add(bare);
    knownHexPattern = new RegExp(`(?:0x)?(?:${[...knownHex].join('|')})`, 'gi');
    return;
  }
  if (text.length < MIN_SECRET_LENGTH) return;
  knownText.add(JSON.stringify(text).slice(1, -1));
}

/** `line` with every known secret in it replaced. */
function redactKnown(line: string, hexRun: boolean): string {
  if (hexRun && knownHexPattern) line = line.replace(knownHexPattern, CENSOR);
  for (const s of knownText) if (line.includes(s)) line = line.replaceAll(s, CENSOR);
  return line;
}
/** A line without one of these keys (as JSON.stringify writes them) is returned as it is. */
const HINT = new RegExp(`"(?:${REDACTED_KEYS.join('|')})":`);
/** A JSON string token (unrolled: no per-character alternation). */
const STRING = /"[^"\\]*(?:\\.[^"\\]*)*"/g;
const STRING_AT = /"[^"\\]*(?:\\.[^"\\]*)*"/y;
const CENSORED = JSON.stringify(CENSOR);

/** A bearer token or an API key may be in text holding this (hex runs: hasHexRun). */
const WORD_HINT = /[Bb]earer\s|BEARER\s|mk_[0-9a-f]{16}_/;

/** Whether `s` may hold a secret shape: cheap, no false negative (SHAPES decides). */
function mayHoldShape(s: string): boolean {
  return hasHexRun(s) || WORD_HINT.test(s);
}

/**
 * Whether `s` holds 64 hex characters in a row, looking at about one character in 64: a run
 * that long covers every 64th position, so only a hex character there is looked around.
 * (A regular expression tries every start position: ten times the cost on a request line.)
 */
function hasHexRun(s: string): boolean {
  for (let i = 63; i < s.length;) {
    if (!isHex(s.charCodeAt(i))) {
      i += 64;
      continue;
    }
    let j = i - 1;
    while (j > i - 64 && isHex(s.charCodeAt(j))) j--;
    if (j === i - 64) return true;
    // a run of 64 lies wholly after j
    i = j + 64;
  }
  return false;
}

function isHex(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70);
}

/**
 * The shapes themselves, inside one JSON string token: hex of exactly 32 bytes or of 64 bytes and
 * more (not a run inside a longer word), a bearer credential, an API key's secret part.
 */
const SHAPES =
  /(?<![0-9A-Za-z])(?:0x)?(?:[0-9a-fA-F]{128,}|[0-9a-fA-F]{64})(?![0-9A-Za-z])|(\bbearer\s+)[A-Za-z0-9._~+/=-]{8,}|(\bmk_[0-9a-f]{16}_)[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/gi;
/** Keys and words that name a 32-byte hex value as public: a hash, digest, nonce or id. */
const PUBLIC_HEX_KEY =
  /[Hh]ash|[Dd]igest|[Ss]ha\d|[Nn]once|[Ss]alt|[Rr]oot|^tx|Tx|_tx|^ids?$|Ids?$|_ids?$/;
const PUBLIC_HEX_WORDS =
  /(?:\btx(?:id)?|hash|digest|sha-?256|nonce|transaction|block|root)\W{0,8}$/i;

/**
 * A compact JSON text (one log line, as JSON.stringify or pino writes it, a trailing newline
 * allowed) with the value of every key in REDACTED_KEYS replaced by "[redacted]" at any depth,
 * and the secret shapes inside every other string value too.
 * Text that is not such JSON is never made worse: only values after a `"key":` and runs inside
 * string tokens are replaced.
 */
export function redactJsonLine(line: string): string {
  const hexRun = hasHexRun(line);
  if (knownText.size || (hexRun && knownHexPattern)) line = redactKnown(line, hexRun);
  const keys = HINT.test(line);
  const shapes = hexRun || WORD_HINT.test(line);
  if (!keys && !shapes) return line;
  let out = '';
  let from = 0;
  let keyStart = -1;
  let keyEnd = -1;
  STRING.lastIndex = 0;
  for (let m = STRING.exec(line); m; m = STRING.exec(line)) {
    const end = STRING.lastIndex;
    // a string followed by ':' is a key (outside strings JSON has no quote)
    if (line.charCodeAt(end) === 58) {
      keyStart = m.index + 1;
      keyEnd = end - 1;
      if (!keys || !KEYS.has(m[0].slice(1, -1))) continue;
      const valueEnd = endOfValue(line, end + 1);
      out += line.slice(from, end + 1) + CENSORED;
      from = valueEnd;
      STRING.lastIndex = valueEnd;
      continue;
    }
    if (!shapes) continue;
    // a value right after its key (`"key":"…"`), or an array's element (no key of its own)
    const key = line.charCodeAt(m.index - 1) === 58 ? line.slice(keyStart, keyEnd) : '';
    const redacted = redactShapes(m[0], key);
    if (redacted === m[0]) continue;
    out += line.slice(from, m.index) + redacted;
    from = end;
  }
  return from === 0 ? line : out + line.slice(from);
}

/** A JSON string token with every secret shape in it replaced; `key` is the key it is under. */
function redactShapes(token: string, key: string): string {
  if (!mayHoldShape(token)) return token;
  return token.replace(
    SHAPES,
    (match: string, bearer: string | undefined, apiKey: string | undefined, at: number) => {
      if (bearer !== undefined) return bearer + CENSOR;
      if (apiKey !== undefined) return apiKey + CENSOR;
      const bytes = (match.length - (match[1] === 'x' || match[1] === 'X' ? 2 : 0)) / 2;
      if (
        bytes === 32 &&
        (PUBLIC_HEX_KEY.test(key) || PUBLIC_HEX_WORDS.test(token.slice(Math.max(0, at - 24), at)))
      )
        return match;
      return CENSOR;
    },
  );
}

/** Where the JSON value starting at `i` ends (exclusive). */
function endOfValue(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (c === 34 /* " */) return stringEnd(s, i);
  if (c === 123 /* { */ || c === 91 /* [ */) {
    let depth = 0;
    for (let j = i; j < s.length; j++) {
      const d = s.charCodeAt(j);
      if (d === 34) j = stringEnd(s, j) - 1;
      else if (d === 123 || d === 91) depth++;
      else if ((d === 125 || d === 93) && --depth === 0) return j + 1;
    }
    return s.length;
  }
  // a number, true, false or null: up to the next delimiter
  let j = i;
  while (j < s.length && !',}]\n'.includes(s[j]!)) j++;
  return j;
}

function stringEnd(s: string, i: number): number {
  STRING_AT.lastIndex = i;
  return STRING_AT.test(s) ? STRING_AT.lastIndex : s.length;
}
