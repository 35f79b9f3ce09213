import { createHash, pbkdf2Sync } from 'node:crypto';
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

/** A secret found in a file: its kind and the 1-based line it is on. */
export interface SecretHit {
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
  private readonly base: string;
  private ciphertextLine = 0;
  private macLine = 0;

  constructor(path: string) {
    this.base = path.slice(path.lastIndexOf('/') + 1);
    this.envFile = ENV_FILE.test(this.base);
  }

  /** A line holding a long token-like run or a PEM dash run. */
  tokenLine(line: string, lineNo: number): SecretHit | undefined {
    if (line.includes('0x') && this.walletKey(line))
      return { kind: 'evm_private_key', line: lineNo };
    const keystore = this.keystore(line, lineNo);
    if (keystore) return keystore;
    const kind = findSecret(line);
    return kind ? { kind, line: lineNo } : undefined;
  }

  /** A line holding twelve or more consecutive words of 3 to 8 lowercase letters. */
  wordLine(line: string, lineNo: number): SecretHit | undefined {
    return findMnemonic(line) ? { kind: 'bip39_mnemonic', line: lineNo } : undefined;
  }

  /**
   * A 0x-prefixed 64-hex value that could be a secp256k1 key, given to a secret-ish name
   * (`PRIVATE_KEY = "0x…"`, `signerKey: '0x…'`, `privateKeyToAccount('0x…')`, `--private-key 0x…`),
   * or anywhere in a `.env`-style file unless its name says it is a hash, address, slot…
   */
  private walletKey(line: string): boolean {
    let seen = 0;
    for (const m of line.matchAll(HEX64)) {
      if (++seen > 8) return false;
      const hex = m[1]!;
      if (!isKeyLike(hex)) continue;
      const name = assignedName(line, m.index);
      const secret =
        name !== undefined
          ? isSecretName(name) || (this.envFile && !isExcludedName(name))
          : this.envFile || (BARE_VALUE.test(line.trim()) && isSecretName(this.base));
      if (secret && !isPublicDevKey(hex)) return true;
    }
    return false;
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
    return { kind: 'wallet_keystore', line: at };
  }
}

/** `.env`, `.env.local`, `.env.production`, `prod.env`, … */
const ENV_FILE = /^\.env(?:\..+)?$|.\.env$/i;
const HEX64 = /(?<![\w$])0x([0-9a-fA-F]{64})(?![\w$])/g;
/** A value alone on its line (a key file, one entry of a JSON list). */
const BARE_VALUE = /^["'`]?0x[0-9a-fA-F]{64}["'`]?,?$/;
const KEYSTORE_CIPHERTEXT = /\bciphertext["']?\s*:\s*["'][0-9a-fA-F]{32,}["']/;
const KEYSTORE_MAC = /\bmac["']?\s*:\s*["'][0-9a-fA-F]{64}["']/;

/** Order of the secp256k1 group: a private key is in [1, n). */
const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

/**
 * A 64-hex value that looks like a key rather than a constant: in range, with the entropy of
 * random hex (zero-padded numbers, `deadbeef…` and other repeats fall out).
 */
function isKeyLike(hex: string): boolean {
  if (entropy(hex.toLowerCase()) < 3.3) return false;
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
  /(?:^|[^\w$.-])([A-Za-z_$][\w$.-]*)["'`]?\]?\s*(?::[^=:;,(){}"'`]{1,40})?(?::=|\?=|=>|\?\?|\|\||=|:|\()\s*["'`]?$/;
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
const PUBLIC_ACCOUNTS = 20;
let publicKeys: Set<string> | undefined;

/** One of the public development keys (derived once, on first need). */
function isPublicDevKey(hex: string): boolean {
  publicKeys ??= new Set(
    [...PUBLIC_MNEMONICS].flatMap((m) => {
      const seed = pbkdf2Sync(m, 'mnemonic', 2048, 64, 'sha512');
      const parent = HDKey.fromMasterSeed(seed).derive("m/44'/60'/0'/0");
      return Array.from({ length: PUBLIC_ACCOUNTS }, (_, i) =>
        Buffer.from(parent.deriveChild(i).privateKey!).toString('hex'),
      );
    }),
  );
  return publicKeys.has(hex.toLowerCase());
}

const WORD_INDEX = new Map(english.map((w, i) => [w, i]));
const MNEMONIC_LENGTHS = new Set([12, 15, 18, 21, 24]);
/** Between the words of a phrase: spaces, or the quotes and commas of a list. */
const PHRASE_GAP = /^[\s"',]+$/;
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
  const close = (): boolean => {
    const found =
      MNEMONIC_LENGTHS.has(words.length) &&
      opens(line, start) &&
      closes(line, end) &&
      !PUBLIC_MNEMONICS.has(words.join(' ')) &&
      validChecksum(words);
    words = [];
    return found;
  };
  for (const m of line.matchAll(/[A-Za-z0-9]+/g)) {
    const word = m[0];
    if (words.length && !PHRASE_GAP.test(line.slice(end, m.index)) && close()) return true;
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
