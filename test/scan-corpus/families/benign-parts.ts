import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { buildZip, type Files } from '../../helpers/archives.js';

/**
 * The parts ordinary projects carry besides their code, the ones a scan must not mistake for a
 * threat: lockfiles full of hashes, minified bundles and source maps, gzip fixtures, `.env.example`
 * with placeholders, docs quoting the public development accounts, a vendored test jar, generated
 * protobuf code, notebooks with embedded images. All generated from a seeded PRNG.
 */
export type Rand = () => number;

export function prng(seedText: string): Rand {
  let s = createHash('sha256').update(seedText).digest().readUInt32LE(0) || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
}

export const pick = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
export const int = (r: Rand, lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));
export const hex = (r: Rand, n: number) =>
  Array.from({ length: n }, () => Math.floor(r() * 16).toString(16)).join('');
export const bytes = (r: Rand, n: number) =>
  Buffer.from(Array.from({ length: n }, () => Math.floor(r() * 256)));
export const b64 = (r: Rand, n: number) => bytes(r, n).toString('base64');

export const DOMAINS = [
  'billing',
  'inventory',
  'auth',
  'search',
  'reports',
  'scheduler',
  'notify',
  'catalog',
  'payments',
  'shipping',
  'analytics',
  'users',
  'orders',
  'media',
  'audit',
  'pricing',
  'ledger',
  'metrics',
  'sync',
  'export',
] as const;
export const ENTITIES = [
  'invoice',
  'item',
  'session',
  'query',
  'report',
  'job',
  'message',
  'product',
  'charge',
  'parcel',
  'event',
  'profile',
  'order',
  'asset',
  'record',
  'account',
  'batch',
  'ticket',
  'vendor',
  'coupon',
] as const;
export const FIELDS = [
  'id',
  'name',
  'total',
  'status',
  'created_at',
  'owner',
  'quantity',
  'price',
  'currency',
  'email',
  'region',
  'priority',
  'due_date',
  'attempts',
  'score',
  'label',
] as const;

export const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
export const camel = (s: string) => s.replace(/_(\w)/g, (_, c: string) => c.toUpperCase());

/** Hardhat / Anvil development account #0 and #1: public, printed by `npx hardhat node`. */
export const HARDHAT_ACCOUNTS = [
  [
    '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
    '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  ],
  [
    '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  ],
] as const;

export function readme(r: Rand, title: string, run: string): string {
  const d = pick(r, DOMAINS);
  return `# ${title}\n\nA ${d} service: ${pick(r, ENTITIES)}s in, ${pick(r, ENTITIES)}s out.\n\n## Running\n\n\`\`\`sh\n${run}\n\`\`\`\n\n## Layout\n\n- \`src/\`: the code\n- \`tests/\`: the tests\n- \`docs/\`: design notes\n`;
}

export function envExample(r: Rand): string {
  return [
    '# Copy to .env and fill in your own values',
    `DATABASE_URL=postgres://user:password@localhost:5432/${pick(r, DOMAINS)}`,
    'API_KEY=<your-api-key>',
    'STRIPE_SECRET_KEY=changeme',
    'JWT_SECRET=${JWT_SECRET}',
    'SESSION_TOKEN=xxxxxxxxxxxxxxxxxxxx',
    'PRIVATE_KEY=',
    `PORT=${int(r, 3000, 9000)}`,
    '',
  ].join('\n');
}

export function hardhatDocs(): string {
  const [a0, a1] = HARDHAT_ACCOUNTS;
  return `# Local chain\n\nStart a local node with \`npx hardhat node\`. It prints the public development accounts, e.g.:\n\n\`\`\`\nAccount #0: ${a0[0]} (10000 ETH)\nPrivate Key: ${a0[1]}\n\nAccount #1: ${a1[0]} (10000 ETH)\nPrivate Key: ${a1[1]}\n\`\`\`\n\nThese keys are public: never send real funds to them. The mnemonic is\n\`test test test test test test test test test test test junk\`.\n`;
}

export function ciWorkflow(setup: string, test: string): string {
  return `name: ci\non: [push, pull_request]\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - ${setup}\n      - run: ${test}\n`;
}

/** A minified bundle: one long line of real-looking minified code (~`kb` KiB). */
export function minifiedBundle(r: Rand, kb: number): string {
  const v = () => pick(r, ['e', 't', 'n', 'r', 'i', 'o', 'a', 's', 'u', 'c', 'l', 'f']);
  const parts: string[] = [
    '/*! vendor bundle | MIT License */!function(e,t){"object"==typeof exports&&"undefined"!=typeof module?module.exports=t():"function"==typeof define&&define.amd?define(t):(e="undefined"!=typeof globalThis?globalThis:e||self).Lib=t()}(this,function(){"use strict";',
  ];
  let size = parts[0]!.length;
  while (size < kb * 1024) {
    const name = `${pick(r, ENTITIES)}${cap(pick(r, FIELDS).replace('_', ''))}`;
    const s = pick(r, [
      `function ${v()}${int(r, 0, 99)}(${v()},${v()}){return ${v()}.${name}=${v()}||${int(r, 0, 999)},${v()}}`,
      `var ${v()}=Object.prototype.hasOwnProperty,${v()}=Array.isArray,${v()}="${name}";`,
      `const ${v()}${int(r, 0, 9)}=(${v()},${v()}=${int(r, 1, 64)})=>${v()}.slice(0,${v()}).map(${v()}=>${v()}*${int(r, 2, 9)});`,
      `if(!${v()}.${name})throw new TypeError("Expected ${name} to be set");`,
      `for(var ${v()}=0;${v()}<${v()}.length;${v()}++)${v()}[${v()}]=${v()}[${v()}]>>>${int(r, 1, 24)}&${int(r, 1, 255)};`,
    ]);
    parts.push(s);
    size += s.length;
  }
  parts.push('return{version:"3.7.1"}});');
  return parts.join('');
}

/** A source map whose `mappings` is a long run of base64 VLQ, as bundlers write them. */
export function sourceMap(r: Rand, file: string): string {
  const vlq = 'ACDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  const mappings = Array.from({ length: 400 }, () =>
    Array.from({ length: int(r, 4, 8) }, () => pick(r, [...vlq])).join(''),
  ).join(',');
  return JSON.stringify({ version: 3, file, sources: ['../src/index.js'], names: [], mappings });
}

/** `fixtures/<x>.json.gz`: compressed test data (a gzip of JSON, not an archive). */
export function gzipFixture(r: Rand): Buffer {
  const rows = Array.from({ length: int(r, 50, 400) }, (_, i) => ({
    id: i + 1,
    [pick(r, FIELDS)]: pick(r, ENTITIES),
    amount: Math.round(r() * 100000) / 100,
  }));
  return gzipSync(Buffer.from(JSON.stringify(rows, null, 1)));
}

/** A class file header and constant pool that a JVM would parse (cafebabe, major 52). */
function classFile(r: Rand, className: string): Buffer {
  const name = Buffer.from(className.replace(/\./g, '/'));
  const head = Buffer.from([0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 52, 0, 5, 1]);
  const len = Buffer.alloc(2);
  len.writeUInt16BE(name.length);
  return Buffer.concat([
    head,
    len,
    name,
    Buffer.from([7, 0, 1, 0, 0x21, 0, 2, 0, 0, 0, 0]),
    bytes(r, int(r, 200, 900)),
  ]);
}

/** A vendored test jar: a well-formed zip with a manifest and a few classes. */
export function testJar(r: Rand, pkg: string): Buffer {
  const classes = Array.from({ length: int(r, 2, 6) }, (_, i) => `${pkg}.Fixture${i}`);
  return buildZip([
    { name: 'META-INF/', data: '' },
    {
      name: 'META-INF/MANIFEST.MF',
      data: 'Manifest-Version: 1.0\r\nCreated-By: 17 (Eclipse Adoptium)\r\n\r\n',
    },
    ...classes.map((c) => ({ name: `${c.replace(/\./g, '/')}.class`, data: classFile(r, c) })),
  ]);
}

/** A notebook with code cells and an embedded PNG output (a long base64 line). */
export function notebook(r: Rand, topic: string): string {
  const cell = (src: string[], outputs: unknown[] = []) => ({
    cell_type: 'code',
    execution_count: int(r, 1, 40),
    metadata: {},
    outputs,
    source: src,
  });
  return JSON.stringify(
    {
      cells: [
        { cell_type: 'markdown', metadata: {}, source: [`# ${cap(topic)} exploration\n`] },
        cell(['import pandas as pd\n', `df = pd.read_csv("data/${topic}.csv")\n`, 'df.describe()']),
        cell(
          [`ax = df["${pick(r, FIELDS)}"].plot(kind="hist")\n`, 'ax.figure.savefig("hist.png")'],
          [
            {
              output_type: 'display_data',
              metadata: {},
              data: {
                'image/png': Buffer.concat([
                  Buffer.from('89504e470d0a1a0a', 'hex'),
                  bytes(r, 1500),
                ]).toString('base64'),
                'text/plain': ['<Figure size 640x480 with 1 Axes>'],
              },
            },
          ],
        ),
      ],
      metadata: { kernelspec: { display_name: 'Python 3', language: 'python', name: 'python3' } },
      nbformat: 4,
      nbformat_minor: 5,
    },
    null,
    1,
  );
}

export type ProjectFiles = Files;
