import { FileSecrets } from './secrets.js';

/**
 * The preview's text (./preview.ts): the bytes it captured of a README, licence or manifest, how
 * they are decoded, and what of them a buyer may read: the README excerpt (HTML-escaped, control
 * characters dropped, lines the secret rules flag redacted) and file names with their disguising
 * characters spelled out.
 */

export type Capture = 'readme' | 'licence' | 'manifest';
export type TextKind = 'text' | 'utf16le' | 'utf16be' | 'binary' | 'nested' | 'other';

export interface Captured {
  path: string;
  what: Capture;
  kind: TextKind;
  bytes: Buffer;
  truncated: boolean;
}

/** The README's first lines as a buyer sees them. */
export interface ReadmeExcerpt {
  path: string;
  excerpt: string;
  truncated: boolean;
}

/** README.md before README.rst, README.txt, README, then others. */
export function readmeRank(path: string): number {
  const base = path.slice(path.lastIndexOf('/') + 1).toLowerCase();
  const order = ['readme.md', 'readme.markdown', 'readme.rst', 'readme.txt', 'readme'];
  const i = order.indexOf(base);
  return i >= 0 ? i : order.length;
}

export const isTextual = (k: TextKind) => k === 'text' || k === 'utf16le' || k === 'utf16be';

/** Half a surrogate pair: a high one not followed by a low one, or a low one not after a high one. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

export function decode(c: Captured): string {
  if (c.kind === 'utf16le' || c.kind === 'utf16be') {
    let b = c.bytes;
    if (b.length >= 2 && (b[0]! << 8) + b[1]! === (c.kind === 'utf16le' ? 0xfffe : 0xfeff))
      b = b.subarray(2);
    b = b.subarray(0, b.length & ~1);
    if (c.kind === 'utf16be') b = Buffer.from(b).swap16();
    // half a surrogate pair (two stray bytes, or a cut capture) becomes a replacement character,
    // as a bad UTF-8 sequence does: jsonb refuses an unpaired surrogate, so the preview could not
    // be stored and a paid scan ended processing_error
    return b.toString('utf16le').replace(LONE_SURROGATE, '\ufffd');
  }
  // a cut in the middle of a UTF-8 sequence becomes one replacement character
  return new TextDecoder('utf-8', { fatal: false }).decode(c.bytes);
}

/** Control characters (but tab), and the Unicode bidirectional overrides that disguise text. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
/**
 * Characters a file name may hold (the scan refuses control characters in names, not these) that
 * change how the name reads: bidi overrides and isolates ("invoice\u202egpj.ts" reads as
 * "invoicest.jpg"), zero-width and invisible marks. The preview spells each out as `\uXXXX`.
 */
const DISGUISING =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/g;
export const shownPath = (path: string) =>
  path.replace(DISGUISING, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

const HEX64 = /(?<![0-9a-fA-F])[0-9a-fA-F]{64}(?![0-9a-fA-F])/;
const escapeHtml = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function readmeExcerpt(
  c: Captured,
  limits: { readmeLines: number; readmeBytes: number },
): ReadmeExcerpt | null {
  if (!isTextual(c.kind)) return null; // a binary README has no excerpt
  const text = decode(c).replace(/\r\n?/g, '\n');
  const all = text.split('\n');
  // the last line of a cut capture may be partial: it goes
  const complete = c.truncated && all.length > 1 ? all.slice(0, -1) : all;
  const lines = complete.slice(0, limits.readmeLines);
  const secrets = new FileSecrets(c.path);
  let truncated = c.truncated || complete.length > limits.readmeLines;
  const out: string[] = [];
  let size = 0;
  for (const [i, raw] of lines.entries()) {
    const line = raw.replace(CONTROL, '');
    const secret =
      HEX64.test(line) ||
      secrets.tokenLine(line, i + 1) ||
      secrets.escapedLine(line, i + 1) ||
      secrets.wordLine(line, i + 1) ||
      (line.includes('://') && secrets.urlLine(line, i + 1));
    const shown = secret ? '[redacted]' : escapeHtml(line);
    size += Buffer.byteLength(shown) + 1;
    if (size > limits.readmeBytes) {
      truncated = true;
      break;
    }
    out.push(shown);
  }
  while (out.length && out[out.length - 1] === '') out.pop();
  return { path: c.path, excerpt: out.join('\n'), truncated };
}
