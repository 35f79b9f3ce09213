/**
 * Code that evaluates what it decodes, or runs what it downloads: the dropper shapes of malicious
 * packages (GuardDog's `exec-base64`, `npm-exec-base64`, `obfuscation`, `download-executable`).
 * Asked only of lines that can hold one (see content.ts: a long token run, a backslash escape, a
 * pipe or `&&`, a long line), and of every line of a file once it has assigned an encoded literal.
 * Findings name the rule and the evaluator, never the payload.
 */
export interface CodeHit {
  rule: string;
  kind: string;
}

/**
 * Calls that evaluate code or run a command; a capture names the callee. Methods only on the
 * modules that own them (`child_process.exec`, `os.system`, `subprocess.run`, `vm.runIn…`), so
 * that a regular expression's `.exec(` or a function's `.call(` is not one.
 */
const EVALUATOR =
  /(?<![\w$.])(eval|exec|execfile|compile|Function|__import__|execSync|spawnSync|execFileSync|Popen)\s*\(|(?:child_process|childProcess|\bcp|require\(\s*["'](?:node:)?child_process["']\s*\))\.(exec|execSync|spawn|spawnSync|execFile|execFileSync)\s*\(|(?:\bos|\))\.(system|popen|exec[lv]p?e?|spawn[lv]p?e?)\s*\(|\bsubprocess\.(\w+)\s*\(|\bvm\.(runIn\w+)\s*\(|\.(runInThisContext|runInNewContext|runInContext)\s*\(|\bnew\s+(?:vm\.)?(Script)\s*\(|\b(Invoke-Expression|iex)\b/g;
/** Of those, the ones that run a shell command (a download-and-run needs one). */
const RUNS_COMMAND =
  /^(?:system|popen|Popen|execSync|spawnSync|execFileSync|exec|spawn|execFile|check_output|check_call|getoutput|run|call|Invoke-Expression|iex)$/;
/** Of those, the ones that evaluate code (a fetched script must not reach one). */
const EVALUATES = /^(?:eval|exec|execfile|compile|Function|runIn\w+|Script|Invoke-Expression|iex)$/;
/** A decoding call or encoding name inside an evaluator's argument. */
const DECODE =
  /\b(?:atob|b64decode|b32decode|b16decode|a85decode|b85decode|decodebytes|decodestring|fromhex|unhexlify|fromCharCode|unescape|decompress|inflateSync|inflateRawSync|gunzipSync|brotliDecompressSync|FromBase64String)\s*\(|\bmarshal\.loads\b|\bcodecs\.decode\b|['"](?:base64|base64url|hex|rot13|rot_13|hex_codec|zlib)['"]|\bchr\s*\(/;
const ESCAPE = /\\x[0-9a-fA-F]{2}|\\u[0-9a-fA-F]{4}|\\[0-7]{3}/g;
const LONG_ENCODED = /[A-Za-z0-9+/=]{200,}/;
/** A download tool or a raw TCP redirect in a command line. */
export const DOWNLOAD =
  /\b(?:curl|wget|Invoke-WebRequest|iwr|Invoke-RestMethod|irm|DownloadString|DownloadFile|certutil|bitsadmin|Start-BitsTransfer)\b|\/dev\/tcp\//i;
/** Code that fetches over the network (what an evaluator must not be fed). */
const NETWORK_READ =
  /\b(?:urlopen|urlretrieve|requests\.(?:get|post)|https?\.get|fetch|http\.client|httpx\.(?:get|post))\s*\(|\burllib\.request\.urlopen\b/;
/** `name =` (`const name: Type =`, `name = new`, `name = base64.`) ending just before a value. */
const ASSIGNED_BEFORE =
  /([A-Za-z_$][\w$]*)\s*(?::[^=()]{1,30})?(?<![=!<>])=\s*(?:new\s+)?[\w$.\s()'"[\]]*$/;
/** A 120+ character base64 literal: an encoded payload that may be decoded further down. */
const ENCODED_LITERAL = /b?["'`][A-Za-z0-9+/=]{120,}/;
const BUFFER_FROM = /\b(?:new\s+)?Buffer(?:\.from)?\s*\(/;
const ENCODING_NAME = /['"](?:base64|base64url|hex)['"]/;
/** Words one of which every evaluator has: a cheap look before the evaluator expression. */
const EVAL_HINTS = [
  'eval',
  'exec',
  'Function',
  'compile',
  'import',
  'system',
  'popen',
  'Popen',
  'spawn',
  'subprocess',
  'runIn',
  'Script',
  'iex',
  'Invoke',
];

/** The argument text of the call whose `(` is at `open` (to its matching `)`, at most 8 KiB). */
function argumentOf(line: string, open: number): string {
  let depth = 0;
  const end = Math.min(line.length, open + 8192);
  for (let i = open; i < end; i++) {
    const c = line[i];
    if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return line.slice(open + 1, i);
  }
  return line.slice(open + 1, end);
}

/** The rules of one file, in line order (names assigned from decoding calls carry over). */
export class FileCode {
  /** Set once the file assigns an encoded literal: from then on every line is asked. */
  everyLine = false;
  private readonly decoded = new Set<string>();

  line(text: string): CodeHit | undefined {
    if (this.decoded.size < 64) this.remember(text);
    if (!EVAL_HINTS.some((h) => text.includes(h))) return undefined;
    EVALUATOR.lastIndex = 0;
    let m: RegExpExecArray | null;
    while ((m = EVALUATOR.exec(text))) {
      const callee = m.slice(1).find(Boolean)!;
      const open = text.indexOf('(', m.index + m[0].length - 1);
      const arg = (
        callee === 'Invoke-Expression' || callee === 'iex' ? text : argumentOf(text, open)
      ).replace(DATA_URI, '');
      if (decodesFirst(arg) || this.usesDecoded(arg))
        return { rule: 'code:exec_decoded', kind: callee };
      if (countEscapes(arg) >= 16 || LONG_ENCODED.test(arg))
        return { rule: 'code:exec_encoded', kind: callee };
      if (RUNS_COMMAND.test(callee) && DOWNLOAD.test(arg) && runsWhatItFetches(arg))
        return { rule: 'code:exec_download', kind: callee };
      if (EVALUATES.test(callee) && NETWORK_READ.test(arg))
        return { rule: 'code:exec_remote', kind: callee };
    }
    return undefined;
  }

  /**
   * Names given an encoded literal (`BLOB = "<120+ base64>"`) or a decoding call
   * (`code = base64.b64decode(BLOB)`), found by looking just before the literal or the call.
   */
  private remember(text: string): void {
    const lit = ENCODED_LITERAL.exec(text);
    if (lit && this.assigned(text, lit.index)) return;
    const buffer = BUFFER_FROM.exec(text);
    if (buffer && ENCODING_NAME.test(text) && this.assigned(text, buffer.index)) return;
    const decode = DECODE.exec(text);
    if (decode) this.assigned(text, decode.index);
  }

  /** Whether `name =` (through a call chain) comes right before `at`; remembers the name. */
  private assigned(text: string, at: number): boolean {
    const m = ASSIGNED_BEFORE.exec(text.slice(Math.max(0, at - 100), at));
    if (!m || m[1]!.length < 3) return false;
    this.decoded.add(m[1]!);
    this.everyLine = true;
    return true;
  }

  private usesDecoded(arg: string): boolean {
    if (!this.decoded.size) return false;
    for (const w of arg.matchAll(/[A-Za-z_$][\w$]*/g)) if (this.decoded.has(w[0])) return true;
    return false;
  }
}

/** Inline data (`data:…;base64,…`: images, source maps) is not a payload. */
const DATA_URI = /data:[\w/+.-]*(?:;[\w=.-]+)*;base64,[A-Za-z0-9+/=]*/g;

/**
 * The argument is a decoding call (`atob(…)`, `base64.b64decode(…)`, `bytes.fromhex(…)`,
 * `zlib.decompress(…)`, `String.fromCharCode(…)`, `''.join(chr(c) …)`) or a buffer decoded from
 * base64 or hex: the decoding comes first, reached through a call chain only.
 */
function decodesFirst(arg: string): boolean {
  const a = arg.trimStart();
  if (/^(?:new\s+)?Buffer(?:\.from)?\s*\(/.test(a))
    return /['"](?:base64|base64url|hex)['"]/.test(a);
  const m = DECODE.exec(a);
  return !!m && m.index <= 60 && CALL_CHAIN.test(a.slice(0, m.index));
}
const CALL_CHAIN = /^[\w$.\s()'"[\]]*$/;

function countEscapes(s: string): number {
  if (!s.includes('\\')) return 0;
  let n = 0;
  ESCAPE.lastIndex = 0;
  while (ESCAPE.exec(s) && ++n < 16);
  return n;
}

/**
 * A command that runs what it downloads: piped into a shell or interpreter, saved then executed
 * (`&& sh`, `chmod +x`), evaluated (`eval "$(curl …)"`, `iex`), or a raw `/dev/tcp` socket.
 */
export function runsWhatItFetches(cmd: string): boolean {
  return RUN_FETCHED.test(cmd);
}
const RUN_FETCHED =
  /\|\s*(?:sudo\s+)?(?:(?:ba|z|da|k)?sh|node|python[0-9.]*|perl|ruby|php|iex|Invoke-Expression|powershell|pwsh)\b|(?:&&|;|\|\|)\s*(?:sudo\s+)?(?:(?:ba|z|da)?sh|node|python[0-9.]*|chmod|\.\/|\/tmp\/|source)\b|\$\(\s*(?:curl|wget)|`\s*(?:curl|wget)|<\(\s*(?:curl|wget)|\/dev\/tcp\/|\b(?:iex|Invoke-Expression)\b|-O-?\s*\|/i;
