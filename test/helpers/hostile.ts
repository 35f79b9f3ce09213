import { randomBytes } from 'node:crypto';
import { deflateRawSync, gzipSync } from 'node:zlib';
import type { Finding } from '../../src/scan/types.js';
import { buildTarGz, buildZip, uniqueProject, zipOf, type Files } from './archives.js';
import { freshKey, freshMnemonic, keystoreJson } from './wallet-secrets.js';

export interface HostileCase {
  name: string;
  compression: 'zip' | 'tar.gz';
  bytes: Buffer;
  reason: 'safety_checks_failed' | 'insufficient_complexity';
  /** The operator-side finding expected first. */
  check: string;
  /**
   * Passes the upload's signature and structure checks; false: refused before the fee with 400
   * `unsupported_archive` (a zip whose end record is not at the end is not a readable zip; an
   * archive with no file in it has nothing to sell).
   */
  uploadable: boolean;
  /** The whole first finding, where the case pins it (secrets: kind, file and line). */
  finding?: Finding;
  /** A secret the archive holds: no finding, status or log may contain it. */
  secret?: string;
}

/** Where traversal entries would land if anything extracted them. Tests assert these never exist. */
export const SLIP_MARKER = `marketplace-slip-${randomBytes(4).toString('hex')}`;

const PRIVATE_KEY = [
  '-----BEGIN RSA PRIVATE KEY-----',
  'MIIEowIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7MhgHcTz6sE2I2yPB',
  'aFDrBz9vFqU4yZmNf1HjKkM8dVnYqK3gkG7nEv0T2JcKzq3XhR2mS0wJzvLsUe5p',
  '-----END RSA PRIVATE KEY-----',
].join('\n');

/** A real project plus one hostile addition, so that only the hostile part can explain a refusal. */
function withProject(extra: Files): Files {
  return { ...uniqueProject(), ...extra };
}

function project(): Array<{ name: string; data: string | Buffer }> {
  return Object.entries(uniqueProject()).map(([name, data]) => ({ name, data }));
}

/** One archive per check, generated fresh (unique bytes) on each call. */
export async function hostileCorpus(): Promise<HostileCase[]> {
  const zeros = Buffer.alloc(8 * 1024 * 1024);
  const bombData = deflateRawSync(zeros, { level: 9 });
  const inner = zipOf(uniqueProject());
  const middle = zipOf({ 'inner.zip': inner, 'notes.txt': 'middle layer\n' });

  // Overlap: a stored entry whose data contains a second entry's local header and data.
  const innerEntry = buildZip([{ name: 'kernel.txt', data: zeros.subarray(0, 2 * 1024 * 1024) }]);
  const innerLocal = innerEntry.subarray(0, innerEntry.readUInt32LE(innerEntry.length - 6));
  const overlap = buildZip(
    [...project(), { name: 'carrier.bin', data: innerLocal, method: 0 }],
    {},
  );
  // Second central record pointing inside the carrier's data, at the kernel's local header.
  const overlapBomb = addCentralAlias(overlap, 'carrier.bin', 'kernel.txt', innerEntry);

  const walletKey = freshKey();
  const envKey = freshKey();
  const mnemonic = freshMnemonic(24);
  const keystore = keystoreJson(freshKey());
  const { address, crypto } = JSON.parse(keystore) as {
    address: string;
    crypto: { ciphertext: string };
  };
  const keystoreName = `keystore/UTC--2025-01-01T00-00-00.000000000Z--${address}`;

  const cases: Array<Omit<HostileCase, 'reason' | 'uploadable'> & { uploadable?: false }> = [
    {
      name: 'zip slip',
      compression: 'zip',
      check: 'path_traversal',
      bytes: zipOf(withProject({ [`../../../../tmp/${SLIP_MARKER}`]: 'owned\n' })),
    },
    {
      name: 'absolute path',
      compression: 'zip',
      check: 'absolute_path',
      bytes: zipOf(withProject({ [`/tmp/${SLIP_MARKER}-abs`]: 'owned\n' })),
    },
    {
      name: 'backslash traversal',
      compression: 'zip',
      check: 'backslash_in_name',
      bytes: zipOf(withProject({ '..\\..\\evil.bat': 'echo owned\n' })),
    },
    {
      name: 'drive letter',
      compression: 'zip',
      check: 'drive_letter',
      bytes: zipOf(withProject({ 'C:/Windows/evil.txt': 'x\n' })),
    },
    {
      name: 'control character',
      compression: 'zip',
      check: 'control_character_in_name',
      bytes: zipOf(withProject({ 'src/a\u0007b.ts': 'x\n' })),
    },
    {
      name: 'symlink (zip)',
      compression: 'zip',
      check: 'symlink',
      bytes: buildZip([
        ...project(),
        { name: 'etc-passwd', data: '/etc/passwd', method: 0, unixMode: 0o120777 },
      ]),
    },
    {
      name: 'symlink (tar)',
      compression: 'tar.gz',
      check: 'symlink',
      bytes: await buildTarGz([
        ...project(),
        { name: 'link', type: 'symlink', linkname: '/etc/passwd' },
      ]),
    },
    {
      name: 'hard link (tar)',
      compression: 'tar.gz',
      check: 'hard_link',
      bytes: await buildTarGz([
        ...project(),
        { name: 'hard', type: 'link', linkname: '/etc/shadow' },
      ]),
    },
    {
      name: 'device entry (tar)',
      compression: 'tar.gz',
      check: 'special_file',
      bytes: await buildTarGz([...project(), { name: 'dev-null', type: 'character-device' }]),
    },
    {
      name: 'bomb by ratio (zip)',
      compression: 'zip',
      check: 'compression_ratio',
      bytes: buildZip([...project(), { name: 'zeros.dat', data: zeros }]),
    },
    {
      name: 'bomb by ratio lying about its size (zip)',
      compression: 'zip',
      check: 'size_mismatch',
      bytes: buildZip([
        ...project(),
        {
          name: 'zeros.dat',
          compressed: bombData,
          central: { usize: 1000 },
          local: { usize: 1000 },
        },
      ]),
    },
    {
      name: 'bomb by ratio (tar.gz)',
      compression: 'tar.gz',
      check: 'compression_ratio',
      bytes: await buildTarGz([...project(), { name: 'zeros.dat', data: zeros }]),
    },
    {
      name: 'bomb by overlapping entries',
      compression: 'zip',
      check: 'overlapping_entries',
      bytes: overlapBomb,
    },
    {
      name: 'stored smuggling: local says stored, central says deflate',
      compression: 'zip',
      check: 'local_header_mismatch',
      bytes: buildZip([
        ...project(),
        { name: 'payload.js', data: 'module.exports = 1;\n'.repeat(50), local: { method: 0 } },
      ]),
    },
    {
      name: 'stored smuggling: stored entry with mismatched sizes',
      compression: 'zip',
      check: 'stored_size_mismatch',
      bytes: buildZip([
        ...project(),
        {
          name: 'payload.js',
          data: 'hidden();\n',
          method: 0,
          central: { usize: 4 },
          local: { usize: 4 },
        },
      ]),
    },
    {
      name: 'declared size differs from actual',
      compression: 'zip',
      check: 'size_mismatch',
      bytes: buildZip([
        ...project(),
        {
          name: 'big.js',
          data: 'x();\n'.repeat(200),
          central: { usize: 10 },
          local: { usize: 10 },
        },
      ]),
    },
    {
      name: 'trailing data (zip)',
      compression: 'zip',
      check: 'trailing_data',
      bytes: buildZip(project(), { trailing: Buffer.from('hidden payload after the end record') }),
      uploadable: false,
    },
    {
      name: 'trailing data (tar.gz)',
      compression: 'tar.gz',
      check: 'trailing_data',
      bytes: Buffer.concat([await buildTarGz(project()), Buffer.alloc(64)]),
    },
    {
      name: 'encrypted entry',
      compression: 'zip',
      check: 'encrypted_entry',
      bytes: buildZip([...project(), { name: 'secret.txt', data: 'x', flags: 0x1 }]),
    },
    {
      name: 'duplicate names',
      compression: 'zip',
      check: 'duplicate_name',
      bytes: buildZip([...project(), { name: 'src/index.ts', data: 'export const evil = 1;\n' }]),
    },
    {
      name: 'duplicate names by case',
      compression: 'tar.gz',
      check: 'duplicate_name',
      bytes: await buildTarGz([...project(), { name: 'README.MD', data: 'other\n' }]),
    },
    {
      name: 'nested archives past the depth',
      compression: 'zip',
      check: 'nesting_too_deep',
      bytes: zipOf(withProject({ 'vendor/middle.zip': middle })),
    },
    {
      name: 'embedded private key',
      compression: 'zip',
      check: 'secret:private_key_block',
      bytes: zipOf(withProject({ 'config/deploy_key.pem': `# deploy key\n${PRIVATE_KEY}\n` })),
    },
    {
      name: 'cloud credential',
      compression: 'tar.gz',
      check: 'secret:token',
      bytes: await buildTarGz([
        ...project(),
        { name: 'src/aws.ts', data: `export const accessKeyId = 'AKIA${'Q7Z3M5N2P8R4T6V1'}';\n` },
      ]),
    },
    {
      name: 'high-entropy token',
      compression: 'zip',
      check: 'secret:named_value',
      bytes: zipOf(
        withProject({
          'src/client.ts': `const apiKey = "q8Zt3Lm0Xv7Rk2Nw9Bp4Hs6Jd1Fy5Gc";\nexport default apiKey;\n`,
        }),
      ),
    },
    {
      name: 'wallet key assigned to a signer name (zip)',
      compression: 'zip',
      check: 'secret:wallet_key',
      bytes: zipOf(
        withProject({
          'src/settings.py': `import os\n\nSIGNER_PRIVATE_KEY = "${walletKey}"\nRPC_URL = os.environ["RPC_URL"]\n`,
        }),
      ),
      finding: {
        check: 'secret:wallet_key',
        file: 'src/settings.py',
        line: 3,
        detail: 'evm_private_key',
      },
      secret: walletKey.slice(2),
    },
    {
      name: 'wallet key in a .env file (tar.gz)',
      compression: 'tar.gz',
      check: 'secret:wallet_key',
      bytes: await buildTarGz([
        ...project(),
        {
          name: 'deploy/.env.production',
          data: `RPC_URL=https://rpc.example.org\nCHAIN_ID=8453\nSIGNER_PRIVATE_KEY=${envKey}\n`,
        },
      ]),
      finding: {
        check: 'secret:wallet_key',
        file: 'deploy/.env.production',
        line: 3,
        detail: 'evm_private_key',
      },
      secret: envKey.slice(2),
    },
    {
      name: 'mnemonic phrase',
      compression: 'tar.gz',
      check: 'secret:mnemonic',
      bytes: await buildTarGz([
        ...project(),
        {
          name: 'hardhat.config.js',
          data: `module.exports = {\n  networks: {\n    base: {\n      url: 'https://mainnet.base.org',\n      accounts: { mnemonic: "${mnemonic}" },\n    },\n  },\n};\n`,
        },
      ]),
      finding: {
        check: 'secret:mnemonic',
        file: 'hardhat.config.js',
        line: 5,
        detail: 'bip39_mnemonic',
      },
      secret: mnemonic.split(' ').slice(0, 3).join(' '),
    },
    {
      name: 'encrypted keystore',
      compression: 'zip',
      check: 'secret:keystore',
      bytes: zipOf(withProject({ [keystoreName]: keystore })),
      finding: { check: 'secret:keystore', file: keystoreName, line: 1, detail: 'wallet_keystore' },
      secret: crypto.ciphertext,
    },
    {
      name: 'native executable',
      compression: 'zip',
      check: 'executable',
      bytes: zipOf(
        withProject({
          'bin/tool': Buffer.concat([
            Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1]),
            randomBytes(600),
          ]),
        }),
      ),
    },
    {
      name: 'empty archive',
      compression: 'zip',
      check: 'insufficient_complexity',
      bytes: buildZip([]),
      // a readable zip with no file: refused before the fee (the scan alone still refuses it)
      uploadable: false,
    },
    {
      name: 'trivial project',
      compression: 'tar.gz',
      check: 'insufficient_complexity',
      bytes: gzipSync(
        await buildTarOnly({
          'README.md': '# hello\n',
          'index.js': 'console.log("hello world");\n',
        }),
      ),
    },
    {
      name: 'repetitive filler',
      compression: 'zip',
      check: 'insufficient_complexity',
      bytes: zipOf({ 'main.py': 'print("hello world")\n'.repeat(500), LICENSE: 'MIT\n' }),
    },
    {
      name: 'prepended data',
      compression: 'zip',
      check: 'prepended_data',
      bytes: buildZip(project(), {
        prepend: Buffer.from('PK\u0003\u0004 stub that is not a real header padding'),
      }),
    },
  ];
  return cases.map((c) => ({
    ...c,
    reason:
      c.check === 'insufficient_complexity'
        ? ('insufficient_complexity' as const)
        : ('safety_checks_failed' as const),
    uploadable: c.uploadable ?? true,
  }));
}

async function buildTarOnly(files: Files): Promise<Buffer> {
  const { buildTar } = await import('./archives.js');
  return buildTar(Object.entries(files).map(([name, data]) => ({ name, data })));
}

/**
 * Adds to `zip` a central record named `aliasName` pointing at the local header that sits inside the
 * data of the stored entry `carrierName` (that data is `innerEntry`'s first local record).
 */
function addCentralAlias(
  zip: Buffer,
  carrierName: string,
  aliasName: string,
  innerEntry: Buffer,
): Buffer {
  const eocd = zip.length - 22;
  const cdOffset = zip.readUInt32LE(eocd + 16);
  const cdSize = zip.readUInt32LE(eocd + 12);
  const count = zip.readUInt16LE(eocd + 10);
  // Find the carrier's local header and compute where its data begins.
  let p = 0;
  let carrierData = -1;
  while (p < cdOffset) {
    const nameLen = zip.readUInt16LE(p + 26);
    const extraLen = zip.readUInt16LE(p + 28);
    const name = zip.toString('utf8', p + 30, p + 30 + nameLen);
    const csize = zip.readUInt32LE(p + 18);
    const data = p + 30 + nameLen + extraLen;
    if (name === carrierName) carrierData = data;
    p = data + csize;
  }
  if (carrierData < 0) throw new Error('carrier not found');
  // The inner zip's central record for the kernel, re-pointed at its position inside the carrier.
  const innerCd = innerEntry.readUInt32LE(innerEntry.length - 6);
  const rec = Buffer.from(innerEntry.subarray(innerCd, innerEntry.length - 22));
  rec.writeUInt32LE(carrierData, 42);
  void aliasName;
  const cd = Buffer.concat([zip.subarray(cdOffset, cdOffset + cdSize), rec]);
  const end = Buffer.from(zip.subarray(eocd));
  end.writeUInt16LE(count + 1, 8);
  end.writeUInt16LE(count + 1, 10);
  end.writeUInt32LE(cd.length, 12);
  return Buffer.concat([zip.subarray(0, cdOffset), cd, end]);
}
