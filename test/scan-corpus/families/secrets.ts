import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { zipOf } from '../../helpers/archives.js';
import { freshKey, freshMnemonic, keystoreJson } from '../../helpers/wallet-secrets.js';
import type { CorpusCase } from '../types.js';
import { b64, hex, hostileCases, password, token, type Variant } from '../content-variants.js';

/**
 * Secrets in every common spelling (issue 23): wallet keys with and without `0x` in `.env`, shell
 * and YAML, passwords and API keys under secret names, vendor token formats, credentials inside
 * connection URLs, private key blocks, keystores, mnemonics; UTF-16 files (with and without a
 * byte-order mark) and text with a stray NUL. Every value is generated at build time.
 */
const bareKey = () => freshKey().slice(2);

/** `text` as UTF-16: little- or big-endian, with or without a byte-order mark. */
function utf16(text: string, order: 'le' | 'be', bom: boolean): Buffer {
  const le = Buffer.from((bom ? '\ufeff' : '') + text, 'utf16le');
  return order === 'le' ? le : Buffer.from(le).swap16();
}

/** A PEM-style block of `bytes` random bytes in 64- or 70-column base64. */
function block(header: string, body: Buffer, cols = 64, between = ''): string {
  const b = body.toString('base64');
  const lines: string[] = [];
  for (let i = 0; i < b.length; i += cols) lines.push(b.slice(i, i + cols));
  return `-----BEGIN ${header}-----\n${between}${lines.join('\n')}\n-----END ${header}-----\n`;
}

/** A PKCS#8 key block as a JavaScript array of quoted lines. */
const pemArray = () =>
  `export const KEY = [\n${block('PRIVATE KEY', randomBytes(1200))
    .trim()
    .split('\n')
    .map((l) => `  '${l}',`)
    .join('\n')}\n].join('\\n');\n`;
const djangoKey = () =>
  'django-insecure-' +
  Array.from(
    randomBytes(50),
    (b) => 'abcdefghijklmnopqrstuvwxyz0123456789!@#$%^&*(-_=+)'[b % 50],
  ).join('');

/** A freshly generated private JSON Web Key, its members sorted as jose exports them. */
const privateJwk = (type: 'ec' | 'rsa' | 'ed25519') => {
  const { privateKey } =
    type === 'ec'
      ? generateKeyPairSync('ec', { namedCurve: 'P-256' })
      : type === 'rsa'
        ? generateKeyPairSync('rsa', { modulusLength: 2048 })
        : generateKeyPairSync('ed25519');
  const jwk = privateKey.export({ format: 'jwk' });
  return Object.fromEntries(Object.entries(jwk).sort(([a], [b]) => a.localeCompare(b)));
};

const variants: Variant[] = [
  {
    name: 'jwk-private-ec-jwks',
    expectCheck: 'secret:private_key_block',
    files: () => ({
      'config/jwks.json': JSON.stringify({ keys: [{ ...privateJwk('ec'), use: 'sig' }] }, null, 2),
    }),
  },
  {
    name: 'jwk-private-rsa-pretty',
    expectCheck: 'secret:private_key_block',
    files: () => ({ 'keys/signing-key.json': JSON.stringify(privateJwk('rsa'), null, 2) }),
  },
  {
    name: 'jwk-private-ed25519-in-code',
    expectCheck: 'secret:private_key_block',
    files: () => ({
      'src/auth/keys.ts': `export const SIGNING_KEY = ${JSON.stringify(privateJwk('ed25519'))} as const;\n`,
    }),
  },
  {
    name: 'jwk-symmetric-escaped-in-env-json',
    expectCheck: 'secret:private_key_block',
    files: () => ({
      'deploy/values.json': JSON.stringify(
        { JWT_KEY: JSON.stringify({ kty: 'oct', k: randomBytes(32).toString('base64url') }) },
        null,
        2,
      ),
    }),
  },
  {
    name: 'pem-quoted-line-array',
    expectCheck: 'secret:private_key_block',
    files: () => ({ 'src/signing/key.ts': pemArray() }),
  },
  {
    name: 'pem-base64-kubernetes-secret',
    expectCheck: 'secret:private_key_block',
    files: () => ({
      'k8s/tls.yaml': `apiVersion: v1\nkind: Secret\ntype: kubernetes.io/tls\ndata:\n  tls.key: ${Buffer.from(block('RSA PRIVATE KEY', randomBytes(1190))).toString('base64')}\n`,
    }),
  },
  {
    name: 'ethers-wallet-0x-key',
    expectCheck: 'secret:wallet_key',
    files: () => ({
      'scripts/deploy.ts': `import { ethers } from 'ethers';\n\nconst wallet = new ethers.Wallet("${freshKey()}", provider);\n`,
    }),
  },
  {
    name: 'hardhat-accounts-0x-key',
    expectCheck: 'secret:wallet_key',
    files: () => ({
      'hardhat.config.ts': `export default {\n  solidity: '0.8.24',\n  networks: { base: { url: 'https://mainnet.base.org', accounts: ['${freshKey()}'] } },\n};\n`,
    }),
  },
  {
    name: 'django-insecure-secret-key',
    expectCheck: 'secret:named_value',
    files: () => ({
      'mysite/settings.py': `from pathlib import Path\n\nBASE_DIR = Path(__file__).resolve().parent.parent\nSECRET_KEY = '${djangoKey()}'\nDEBUG = True\n`,
    }),
  },
  {
    name: 'env-bare-hex-key',
    expectCheck: 'secret:wallet_key',
    files: () => ({
      '.env': `NODE_ENV=production\nRPC_URL=https://mainnet.base.org\nPRIVATE_KEY=${bareKey()}\n`,
    }),
  },
  {
    name: 'env-0x-key',
    expectCheck: 'secret:wallet_key',
    files: () => ({
      'deploy/.env.production': `CHAIN_ID=8453\nDEPLOYER_PRIVATE_KEY=${freshKey()}\n`,
    }),
  },
  {
    name: 'shell-export-key',
    expectCheck: 'secret:wallet_key',
    files: () => ({
      'scripts/deploy.sh': `#!/usr/bin/env bash\nset -euo pipefail\nexport PRIVATE_KEY=${bareKey()}\nforge script script/Deploy.s.sol --broadcast\n`,
    }),
  },
  {
    name: 'yaml-private-key',
    expectCheck: 'secret:wallet_key',
    files: () => ({
      'config/chain.yaml': `network: base\nsigner:\n  address_index: 0\n  private_key: ${bareKey()}\n`,
    }),
  },
  {
    name: 'env-short-password',
    expectCheck: 'secret:named_value',
    files: () => ({ '.env': `DB_HOST=db.internal\nDB_USER=shop\nDB_PASSWORD=${password()}\n` }),
  },
  {
    // stand-in words with a number of their own: what a person types as a real password
    name: 'env-worded-password',
    expectCheck: 'secret:named_value',
    files: () => ({
      '.env': `APP_ENV=staging\nMY_SECRET=mysecretpassword7\n`,
    }),
  },
  {
    name: 'env-api-key-quoted',
    expectCheck: 'secret:named_value',
    files: () => ({ 'web/.env.local': `VITE_APP_NAME="Shop"\nMAPS_API_KEY="${token(24)}"\n` }),
  },
  {
    name: 'yaml-client-secret-unquoted',
    expectCheck: 'secret:named_value',
    files: () => ({
      'config/oauth.yml': `oauth:\n  client_id: shop-web\n  client_secret: ${token(40)}\n  redirect: /callback\n`,
    }),
  },
  {
    name: 'shell-export-token',
    expectCheck: 'secret:named_value',
    files: () => ({
      'ci/release.sh': `#!/bin/sh\nexport RELEASE_BOT_TOKEN=${token(32)}\n./gradlew publish\n`,
    }),
  },
  {
    name: 'npmrc-npm-token',
    expectCheck: 'secret:token',
    files: () => ({
      '.npmrc': `registry=https://registry.npmjs.org/\n//registry.npmjs.org/:_authToken=npm_${token(36)}\n`,
    }),
  },
  {
    name: 'npmrc-legacy-auth-token',
    expectCheck: 'secret:npmrc_auth',
    files: () => ({
      '.npmrc': `//npm.pkg.github.com/:_authToken=${randomUUID()}\nalways-auth=true\n`,
    }),
  },
  {
    name: 'postgres-url-password',
    expectCheck: 'secret:url_credentials',
    files: () => ({
      '.env': `DATABASE_URL=postgres://billing:${token(18)}@db-primary.internal.acme.io:5432/billing\n`,
    }),
  },
  {
    name: 'mysql-url-password',
    expectCheck: 'secret:url_credentials',
    files: () => ({
      'app/settings.py': `import os\n\nSQLALCHEMY_DATABASE_URI = "mysql+pymysql://root:${token(14)}@10.20.3.7/shop"\nDEBUG = False\n`,
    }),
  },
  {
    name: 'mongodb-srv-password',
    expectCheck: 'secret:url_credentials',
    files: () => ({
      'src/db.js': `import { MongoClient } from 'mongodb';\n\nconst uri = 'mongodb+srv://admin:${token(16)}@cluster0.x8k2d.mongodb.net/?retryWrites=true';\nexport const client = new MongoClient(uri);\n`,
    }),
  },
  {
    name: 'redis-url-password',
    expectCheck: 'secret:url_credentials',
    files: () => ({
      'docker-compose.yml': `services:\n  worker:\n    image: shop/worker\n    environment:\n      REDIS_URL: redis://:${token(20)}@cache.prod.acme.net:6379/0\n`,
    }),
  },
  {
    name: 'amqp-url-password',
    expectCheck: 'secret:url_credentials',
    files: () => ({
      'config/queue.toml': `[broker]\nurl = "amqps://orders:${token(15)}@rabbit.acme.cloud/orders"\n`,
    }),
  },
  {
    name: 'slack-bot-token',
    expectCheck: 'secret:token',
    files: () => ({
      'src/notify.ts': `import { WebClient } from '@slack/web-api';\n\nconst slack = new WebClient('xoxb-${Date.now() % 1e12}-${Date.now() % 1e12}-${token(24)}');\nexport default slack;\n`,
    }),
  },
  {
    name: 'stripe-live-key',
    expectCheck: 'secret:token',
    files: () => ({ 'server/payments.rb': `Stripe.api_key = "sk_live_${token(24)}"\n` }),
  },
  {
    name: 'github-pat',
    expectCheck: 'secret:token',
    files: () => ({
      '.github/workflows/release.yml': `jobs:\n  release:\n    steps:\n      - run: gh release create v1 --repo acme/shop\n        env:\n          GH_TOKEN: ghp_${token(36)}\n`,
    }),
  },
  {
    name: 'github-fine-grained-pat',
    expectCheck: 'secret:token',
    files: () => ({
      'tools/sync.go': `package tools\n\nconst token = "github_pat_${token(22)}_${token(59)}"\n`,
    }),
  },
  {
    name: 'openai-project-key',
    expectCheck: 'secret:token',
    files: () => ({
      'bot/llm.py': `from openai import OpenAI\n\nclient = OpenAI(api_key="sk-proj-${token(48)}")\n`,
    }),
  },
  {
    name: 'google-api-key',
    expectCheck: 'secret:token',
    files: () => ({
      'public/index.html': `<!doctype html>\n<script src="https://maps.googleapis.com/maps/api/js?key=AIza${token(35)}"></script>\n`,
    }),
  },
  {
    name: 'aws-credentials-file',
    expectCheck: 'secret:token',
    files: () => ({
      'deploy/aws/credentials': `[default]\naws_access_key_id = AKIA${token(16, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567')}\naws_secret_access_key = ${token(40)}\n`,
    }),
  },
  {
    name: 'openssh-private-key',
    expectCheck: 'secret:private_key_block',
    files: () => ({
      'deploy/id_ed25519': block(
        'OPENSSH PRIVATE KEY',
        Buffer.concat([Buffer.from('openssh-key-v1\0'), randomBytes(380)]),
        70,
      ),
    }),
  },
  {
    name: 'pgp-private-key',
    expectCheck: 'secret:private_key_block',
    files: () => ({
      'keys/release-signing.asc': block('PGP PRIVATE KEY BLOCK', randomBytes(900), 64, '\n'),
    }),
  },
  {
    name: 'keystore-v3',
    expectCheck: 'secret:keystore',
    files: () => ({ 'wallets/UTC--2026-01-02T03-04-05Z--deployer': keystoreJson(freshKey()) }),
  },
  {
    name: 'mnemonic-in-config',
    expectCheck: 'secret:mnemonic',
    files: () => ({
      'truffle-config.js': `module.exports = {\n  networks: {\n    base: { mnemonic: '${freshMnemonic()}', network_id: 8453 },\n  },\n};\n`,
    }),
  },
  {
    name: 'utf16le-bom-env',
    expectCheck: 'secret:wallet_key',
    files: () => ({ '.env': utf16(`APP=shop\r\nPRIVATE_KEY=${bareKey()}\r\n`, 'le', true) }),
  },
  {
    name: 'utf16le-no-bom-config',
    expectCheck: 'secret:token',
    files: () => ({
      'config/settings.ini': utf16(
        `[github]\r\nuser = release-bot\r\ntoken = ghp_${token(36)}\r\n`,
        'le',
        false,
      ),
    }),
  },
  {
    name: 'utf16be-bom-script',
    expectCheck: 'secret:token',
    files: () => ({
      'scripts/publish.ps1': utf16(
        `$env:NPM_TOKEN = "npm_${token(36)}"\nnpm publish\n`,
        'be',
        true,
      ),
    }),
  },
  {
    name: 'utf16be-no-bom-key',
    expectCheck: 'secret:wallet_key',
    files: () => ({ 'secrets/signer.env': utf16(`SIGNER_KEY=0x${bareKey()}\n`, 'be', false) }),
  },
  {
    name: 'stray-nul-text',
    expectCheck: 'secret:token',
    files: () => ({
      'src/config.py': Buffer.from(
        `# generated settings\0\nREGION = "eu-west-1"\nACCESS_KEY_ID = "AKIA${token(16, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567')}"\n`,
      ),
    }),
  },
  {
    name: 'secret-in-nested-zip',
    expectCheck: 'secret:wallet_key',
    files: () => ({
      'vendor/deploy-kit.zip': zipOf({
        'kit/.env': `PRIVATE_KEY=${bareKey()}\n`,
        'kit/README.md': '# kit\n',
      }),
    }),
  },
  {
    name: 'hex-private-key-json',
    expectCheck: 'secret:wallet_key',
    files: () => ({
      'config/accounts.json': `{\n  "operator": {\n    "privateKey": "${bareKey()}"\n  }\n}\n`,
    }),
  },
  {
    name: 'generic-secret-in-source',
    expectCheck: 'secret:named_value',
    files: () => ({ 'src/auth/jwt.ts': `export const JWT_SECRET = '${token(44)}';\n` }),
  },
];

void hex;
void b64;

export const cases: CorpusCase[] = hostileCases('secrets', variants);
