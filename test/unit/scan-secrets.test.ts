import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { keccak256, toHex } from 'viem';
import { loadConfig } from '../../src/config.js';
import { scanArchive } from '../../src/scan/scan-archive.js';
import { scanLimits } from '../../src/domain/scan/scan-job.js';
import type { ScanLimits } from '../../src/scan/types.js';
import { tarGzOf, uniqueProject, zipOf, type Files } from '../helpers/archives.js';
import {
  DEV_MNEMONIC,
  devKey,
  freshKey,
  freshMnemonic,
  keystoreJson,
} from '../helpers/wallet-secrets.js';

const limits: ScanLimits = scanLimits(loadConfig({}));

/** Scans a real project plus `extra` as zip and as tar.gz; both must agree. */
async function scan(extra: Files) {
  const files = { ...uniqueProject(), ...extra };
  const zip = await scanArchive(zipOf(files), 'zip', limits);
  const tgz = await scanArchive(await tarGzOf(files), 'tar.gz', limits);
  expect(tgz).toEqual({ ...zip, stats: tgz.stats });
  return zip;
}

const hex32 = () => '0x' + randomBytes(32).toString('hex');
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

describe('wallet keys', () => {
  // Each line holds `<key>`, replaced by a fresh key; the finding names kind, file and line only.
  const flagged: Array<[file: string, text: string]> = [
    ['config/settings.py', 'SIGNER_PRIVATE_KEY = "<key>"'],
    ['src/wallet.ts', "const privateKey: Hex = '<key>';"],
    ['src/wallet.ts', "export const account = privateKeyToAccount('<key>');"],
    ['src/wallet.ts', "const pk = process.env.PRIVATE_KEY ?? '<key>';"],
    ['config/keys.json', '  "signerKey": "<key>",'],
    ['config/app.yaml', 'wallet_secret: <key>'],
    ['config/app.toml', 'seed = "<key>"'],
    ['scripts/deploy.sh', 'forge script script/Deploy.s.sol --private-key <key> --broadcast'],
    ['src/main.rs', 'const WALLET_SECRET: &str = "<key>";'],
    ['cmd/main.go', 'signerKey := "<key>"'],
    ['src/Config.java', 'private static final String MNEMONIC_SEED = "<key>";'],
    ['.env', 'DEPLOYER=<key>'],
    ['.env.local', 'export ETH_PK="<key>"'],
    ['deploy/base.env', 'OPERATOR=<key>'],
    ['keys/deployer.key', '<key>'],
  ];
  it.each(flagged)('%s: %s', async (file, text) => {
    const key = freshKey();
    const out = await scan({ [file]: `# wallet\n\n${text.replace('<key>', key)}\n` });
    expect(out).toMatchObject({ verdict: 'reject', reason: 'safety_checks_failed' });
    if (out.verdict !== 'reject') return;
    expect(out.findings).toEqual([
      { check: 'secret:wallet_key', file, line: 3, detail: 'evm_private_key' },
    ]);
    expect(JSON.stringify(out)).not.toContain(key.slice(2, 18));
  });

  it('a key uppercased, or beside an address on the same line, is still found', async () => {
    const key = freshKey();
    const out = await scan({
      'src/accounts.ts': `export const a = { address: '0x${'ab'.repeat(20)}', privateKey: '${key.toUpperCase().replace('0X', '0x')}' };\n`,
    });
    expect(out).toMatchObject({ verdict: 'reject', findings: [{ detail: 'evm_private_key' }] });
  });
});

describe('mnemonic phrases', () => {
  it.each([
    ['.secret', (m: string) => m],
    ['hardhat.config.ts', (m: string) => `accounts: { mnemonic: "${m}" },`],
    ['.env', (m: string) => `MNEMONIC=${m}`],
    [
      'wallet.json',
      (m: string) =>
        `{ "words": [${m
          .split(' ')
          .map((w) => `"${w}"`)
          .join(', ')}] }`,
    ],
  ])('%s', async (file, render) => {
    for (const words of [12, 24] as const) {
      const phrase = freshMnemonic(words);
      const out = await scan({ [file]: `// seed\n${render(phrase)}\n` });
      expect(out).toMatchObject({ verdict: 'reject', reason: 'safety_checks_failed' });
      if (out.verdict !== 'reject') return;
      expect(out.findings).toEqual([
        { check: 'secret:mnemonic', file, line: 2, detail: 'bip39_mnemonic' },
      ]);
      expect(JSON.stringify(out)).not.toContain(phrase.split(' ').slice(0, 2).join(' '));
    }
  });

  it('a phrase alone in a file, on its first line', async () => {
    const out = await scan({ '.secret': `${freshMnemonic()}\n` });
    expect(out).toMatchObject({
      verdict: 'reject',
      findings: [{ check: 'secret:mnemonic', file: '.secret', line: 1, detail: 'bip39_mnemonic' }],
    });
  });
});

describe('encrypted keystores', () => {
  it('one-line (as geth writes it) and pretty-printed: the line of the ciphertext', async () => {
    const oneLine = await scan({ 'keystore/UTC--2025-01-01--a': keystoreJson(freshKey()) });
    expect(oneLine).toMatchObject({
      verdict: 'reject',
      findings: [
        {
          check: 'secret:keystore',
          file: 'keystore/UTC--2025-01-01--a',
          line: 1,
          detail: 'wallet_keystore',
        },
      ],
    });
    const json = keystoreJson(freshKey(), true);
    const line = json.split('\n').findIndex((l) => l.includes('"ciphertext"')) + 1;
    const pretty = await scan({ 'wallet/deployer.json': json });
    expect(pretty).toMatchObject({
      verdict: 'reject',
      findings: [
        { check: 'secret:keystore', file: 'wallet/deployer.json', line, detail: 'wallet_keystore' },
      ],
    });
  });
});

describe('what is not a wallet secret', () => {
  it('a project full of 64-hex hashes, public development keys and word-rich prose passes', async () => {
    const slot = keccak256(toHex('eip1967.proxy.implementation'));
    const files: Files = {
      'package-lock.json': JSON.stringify(
        {
          name: 'app',
          lockfileVersion: 3,
          packages: {
            'node_modules/viem': {
              version: '2.0.0',
              resolved: 'https://registry.npmjs.org/viem/-/viem-2.0.0.tgz',
              integrity: `sha512-${randomBytes(64).toString('base64')}`,
            },
          },
        },
        null,
        2,
      ),
      'Cargo.lock': `[[package]]\nname = "sha2"\nversion = "0.10.8"\nchecksum = "${sha256('sha2')}"\n`,
      'contracts/Permit.sol': [
        'contract Permit {',
        `    bytes32 public constant DOMAIN_SEPARATOR = ${hex32()};`,
        `    bytes32 private constant PERMIT_TYPEHASH = ${hex32()};`,
        `    bytes32 internal constant _IMPLEMENTATION_SLOT = ${slot};`,
        `    bytes32 public constant SIGNER_ROLE = ${hex32()};`,
        `    bytes32 internal keyHash = ${hex32()};`,
        `    bytes32 private constant SALT = ${hex32()};`,
        '}',
      ].join('\n'),
      'test/sha256.test.ts': [
        `expect(sha256('abc')).toBe('0x${sha256('abc')}');`,
        `const txHash = '${hex32()}';`,
        `const digest = "${hex32()}";`,
        `const publicKey = '${hex32()}';`,
        `const signature = '${hex32()}${hex32().slice(2)}1b';`,
        `const storageKey = '${hex32()}'; // ${hex32()}`,
        `await client.waitForTransactionReceipt({ hash: '${hex32()}' });`,
      ].join('\n'),
      'test/fixtures/block.json': JSON.stringify(
        { hash: hex32(), parentHash: hex32(), stateRoot: hex32(), mixHash: hex32() },
        null,
        2,
      ),
      'test/fixtures/hashes.txt': `${hex32()}\n${hex32()}\n`,
      'src/constants.ts': [
        "export const ZERO_KEY = '0x0000000000000000000000000000000000000000000000000000000000000000';",
        "export const PRIVATE_KEY_PLACEHOLDER = '0x0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef';",
        `export const ANVIL_KEY = '${devKey(0)}';`,
      ].join('\n'),
      '.env.example': `PRIVATE_KEY=${devKey(1)}\nVRF_KEY_HASH=${hex32()}\nMODULE_ADDRESS=${hex32()}\n`,
      'hardhat.config.ts': `export default { networks: { hardhat: { accounts: { mnemonic: '${DEV_MNEMONIC}' } } } };\n`,
      'README.md': [
        '# Wallet helpers',
        'you can use this file to build and run the code in order',
        'able about above absent absorb abstract absurd abuse access accident account accuse',
        'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon',
      ].join('\n'),
    };
    const out = await scan(files);
    expect(out, JSON.stringify(out.verdict === 'reject' && out.findings)).toMatchObject({
      verdict: 'accept',
    });
  });
});
