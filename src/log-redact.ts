/**
 * Log redaction at any depth. A review's text, a payment or identity signature, a secret or an
 * API key can sit anywhere in a logged object: an error carrying a facilitator's answer or a
 * request body (`err.data.paymentPayload.payload.signature`), an AppError's details, an MCP tool's
 * extra fields. Pino's path redaction names fixed depths, so the finished JSON line is redacted
 * instead: every value under one of these keys, at whatever depth, becomes "[redacted]".
 *
 * It costs one regular-expression test on a line without such a key (the request line), and a
 * scan of the line's strings otherwise. No dependency: the MCP server's stderr log uses it too.
 */

/** The keys whose values never reach a log line, at any depth. */
export const REDACTED_KEYS = ['text', 'signature', 'secret', 'apiKey'] as const;

export const CENSOR = '[redacted]';

const KEYS = new Set<string>(REDACTED_KEYS);
/** A line without one of these keys (as JSON.stringify writes them) is returned as it is. */
const HINT = new RegExp(`"(?:${REDACTED_KEYS.join('|')})":`);
/** A JSON string token (unrolled: no per-character alternation). */
const STRING = /"[^"\\]*(?:\\.[^"\\]*)*"/g;
const STRING_AT = /"[^"\\]*(?:\\.[^"\\]*)*"/y;
const CENSORED = JSON.stringify(CENSOR);

/**
 * A compact JSON text (one log line, as JSON.stringify or pino writes it, a trailing newline
 * allowed) with the value of every key in REDACTED_KEYS replaced by "[redacted]" at any depth.
 * Text that is not such JSON is never made worse: only values after a `"key":` are replaced.
 */
export function redactJsonLine(line: string): string {
  if (!HINT.test(line)) return line;
  let out = '';
  let from = 0;
  STRING.lastIndex = 0;
  for (let m = STRING.exec(line); m; m = STRING.exec(line)) {
    const end = STRING.lastIndex;
    // a string followed by ':' is a key (outside strings JSON has no quote)
    if (line.charCodeAt(end) !== 58 || !KEYS.has(m[0].slice(1, -1))) continue;
    const valueEnd = endOfValue(line, end + 1);
    out += line.slice(from, end + 1) + CENSORED;
    from = valueEnd;
    STRING.lastIndex = valueEnd;
  }
  return from === 0 ? line : out + line.slice(from);
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
