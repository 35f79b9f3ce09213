import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { scanArchive } from '../../src/scan/scan-archive.js';
import { HARDHAT_ACCOUNT_KEYS } from '../../src/scan/secrets.js';
import { DEFAULT_SCAN_LIMITS } from '../../src/scan/types.js';
import { uniqueProject, zipOf } from '../helpers/archives.js';

/** A random-looking secp256k1 key (not a public development key). */
const K = '4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318';
const PEM_BODY = [
  'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj',
  'MzEfYyjiWA4R4/M2bS1GB4t7NXp98C3SC6dVMvDuictGeurT8jNbvJZHtCSuYEvu',
  'NMoSfm76oqFvAp8Gy0iz5sxjZmSnXyCdPEovGhLa0VzMaQ8s+CLOyS56YyCFGeJZ',
];
const pem = ['-----BEGIN PRIVATE KEY-----', ...PEM_BODY, '-----END PRIVATE KEY-----', ''].join(
  '\n',
);
/** What `django-admin startproject` writes: 50 characters of its alphabet after the prefix. */
const djangoKey = () =>
  'django-insecure-' +
  Array.from(
    randomBytes(50),
    (b) => 'abcdefghijklmnopqrstuvwxyz0123456789!@#$%^&*(-_=+)'[b % 50],
  ).join('');

/** `text` cut into pieces of `width` characters (a hex dump's lines, a literal's pieces). */
const wrapped = (text: string, width: number) =>
  Array.from({ length: Math.ceil(text.length / width) }, (_, i) =>
    text.slice(i * width, (i + 1) * width),
  );
/** `text` as `\\x`-escaped bytes. */
const escaped = (text: string) =>
  [...Buffer.from(text)].map((b) => `\\x${b.toString(16).padStart(2, '0')}`).join('');

const scanWith = (file: string, text: string) =>
  scanArchive(zipOf({ ...uniqueProject(), [file]: text }), 'zip', DEFAULT_SCAN_LIMITS);
const verdictWith = async (file: string, text: string) => (await scanWith(file, text)).verdict;

describe('leaked keys the scan missed', () => {
  it.each([
    [
      'ethers Wallet, 0x-prefixed',
      'src/wallet.ts',
      `export const wallet = new ethers.Wallet("0x${K}");\n`,
      'secret:wallet_key',
    ],
    [
      'Wallet with a provider',
      'src/signer.ts',
      `export const signer = new Wallet('0x${K}', provider);\n`,
      'secret:wallet_key',
    ],
    [
      'hardhat accounts',
      'hardhat.config.ts',
      `export default { networks: { base: { url: RPC, accounts: ["0x${K}"] } } };\n`,
      'secret:wallet_key',
    ],
    [
      'deployer key in a config object',
      'src/config.ts',
      `export const cfg = {\n  deployer: "0x${K}",\n};\n`,
      'secret:wallet_key',
    ],
    ['const pk', 'src/pk.ts', `export const pk = "0x${K}";\n`, 'secret:wallet_key'],
    ['a deployer key in YAML', 'deploy/config.yaml', `deployer: 0x${K}\n`, 'secret:wallet_key'],
    [
      'PEM lines in a string array',
      'src/key.ts',
      `export const key = [\n${pem
        .trim()
        .split('\n')
        .map((l) => `  '${l}',`)
        .join('\n')}\n].join('\\n');\n`,
      'secret:private_key_block',
    ],
    [
      'PEM lines concatenated in Python',
      'src/key.py',
      `KEY = (\n    "-----BEGIN PRIVATE KEY-----\\n"\n    "${PEM_BODY[0]}\\n"\n)\n`,
      'secret:private_key_block',
    ],
    [
      'a service-account JSON key (body after an escaped newline)',
      'deploy/sa.json',
      `{\n  "type": "service_account",\n  "private_key": "-----BEGIN PRIVATE KEY-----\\n${PEM_BODY.join('\\n')}\\n-----END PRIVATE KEY-----\\n"\n}\n`,
      'secret:private_key_block',
    ],
    [
      'an encrypted PEM (headers and a blank line before the body)',
      'deploy/server.key',
      `-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,5E9A3B2C4D1F60718293A4B5C6D7E8F9\n\n${PEM_BODY.join('\n')}\n-----END RSA PRIVATE KEY-----\n`,
      'secret:private_key_block',
    ],
    [
      'base64 PEM in a Kubernetes Secret',
      'k8s/tls-secret.yaml',
      `apiVersion: v1\nkind: Secret\ntype: kubernetes.io/tls\ndata:\n  tls.key: ${Buffer.from(pem).toString('base64')}\n`,
      'secret:private_key_block',
    ],
    [
      'base64 PEM wrapped at 76 columns (base64 key.pem)',
      'ci/key.b64',
      `${Buffer.from(pem)
        .toString('base64')
        .match(/.{1,76}/g)!
        .join('\n')}\n`,
      'secret:private_key_block',
    ],
    [
      'a URL-encoded PEM in an env file',
      '.env.production',
      `TLS_KEY=${encodeURIComponent(pem)}\n`,
      'secret:private_key_block',
    ],
    [
      'a form-encoded PEM (spaces as +)',
      'scripts/request.txt',
      `${new URLSearchParams({ grant: 'jwt', key: pem }).toString()}\n`,
      'secret:private_key_block',
    ],
    [
      'a hex-encoded PEM in code',
      'src/key.ts',
      `export const KEY = Buffer.from('${Buffer.from(pem).toString('hex')}', 'hex');\n`,
      'secret:private_key_block',
    ],
    [
      'a PEM as a \\x-escaped bytes literal',
      'src/key.py',
      `KEY = b"${[...Buffer.from(pem)].map((b) => `\\x${b.toString(16).padStart(2, '0')}`).join('')}"\n`,
      'secret:private_key_block',
    ],
    [
      'a hex-encoded PEM wrapped at 60 digits (xxd -p)',
      'keys/deploy.hex',
      `${wrapped(Buffer.from(pem).toString('hex'), 60).join('\n')}\n`,
      'secret:private_key_block',
    ],
    [
      'a hex-encoded PEM wrapped at 64 digits in a shell heredoc',
      'scripts/key.sh',
      `xxd -r -p > key.pem <<EOF\n${wrapped(Buffer.from(pem).toString('hex'), 64).join('\n')}\nEOF\n`,
      'secret:private_key_block',
    ],
    [
      'a PEM as a \\x-escaped bytes literal split over lines',
      'src/key.py',
      `KEY = (\n${wrapped(escaped(pem), 64)
        .map((piece) => `    b"${piece}"`)
        .join('\n')}\n)\n`,
      'secret:private_key_block',
    ],
    [
      'Django SECRET_KEY (startproject)',
      'mysite/settings.py',
      `SECRET_KEY = '${djangoKey()}'\n`,
      'secret:named_value',
    ],
  ])('%s is refused', async (_what, file, text, check) => {
    const out = await scanWith(file, text);
    expect(out.verdict === 'reject' && out.findings[0]).toMatchObject({ check, file });
  });

  it('control: the unprefixed ethers Wallet key is refused', async () => {
    expect(
      await verdictWith('src/wallet.ts', `export const wallet = new ethers.Wallet("${K}");\n`),
    ).toBe('reject');
  });
});

describe('…while their public and harmless look-alikes pass', () => {
  it.each([
    [
      'Hardhat default accounts',
      'hardhat.config.ts',
      `export default { networks: { hardhat: { accounts: ["0x${HARDHAT_ACCOUNT_KEYS[0]}"] } } };\n`,
    ],
    [
      'a Hardhat key in a Wallet',
      'test/deploy.ts',
      `const w = new ethers.Wallet("0x${HARDHAT_ACCOUNT_KEYS[1]}");\n`,
    ],
    ['a transaction hash list', 'src/txs.ts', `export const txHashes = ["0x${K}"];\n`],
    [
      'a header alone in docs',
      'docs/keys.md',
      'Paste the key, starting with\n\n    -----BEGIN PRIVATE KEY-----\n\nand ending with the END line.\n',
    ],
    [
      'a certificate in base64',
      'k8s/ca.yaml',
      `data:\n  ca.crt: ${Buffer.from(`-----BEGIN CERTIFICATE-----\n${PEM_BODY[0]}\n-----END CERTIFICATE-----\n`).toString('base64')}\n`,
    ],
    [
      'a certificate URL-encoded and hex-encoded',
      'src/ca.ts',
      (() => {
        const cert = `-----BEGIN CERTIFICATE-----\n${PEM_BODY.join('\n')}\n-----END CERTIFICATE-----\n`;
        return `export const CA = '${encodeURIComponent(cert)}';\nexport const CA_HEX = '${Buffer.from(cert).toString('hex')}';\n`;
      })(),
    ],
    [
      'a certificate in hex wrapped at 60 digits, a hex header alone',
      'certs/ca.hex',
      `${wrapped(Buffer.from(`-----BEGIN CERTIFICATE-----\n${PEM_BODY.join('\n')}\n-----END CERTIFICATE-----\n`).toString('hex'), 60).join('\n')}\n\n${Buffer.from('-----BEGIN PRIVATE KEY-----').toString('hex')}\nnot a key body\n`,
    ],
    [
      'a URL-encoded header alone (a search for it)',
      'src/find.ts',
      "const url = `https://example.com/search?q=${'-----BEGIN%20PRIVATE%20KEY-----'}&page=2`;\n",
    ],
    [
      'Django SECRET_KEY from the environment',
      'mysite/settings.py',
      "SECRET_KEY = os.environ['DJANGO_SECRET_KEY']\n",
    ],
    [
      'a Django placeholder',
      'mysite/settings.py',
      "SECRET_KEY = 'django-insecure-change-me-before-deploying-to-production'\n",
    ],
  ])('%s is accepted', async (_what, file, text) => {
    const out = await scanWith(file, text);
    expect(out.verdict === 'reject' ? out.findings : 'accept').toBe('accept');
  });
});
