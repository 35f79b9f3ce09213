import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import { zipOf, type Files } from '../../helpers/archives.js';
import { BENIGN_PROJECTS } from '../../helpers/corpus.js';
import { HARDHAT_ACCOUNT_KEYS } from '../../../src/scan/secrets.js';
import type { CorpusCase } from '../types.js';
import { pack, prefixed } from '../content-variants.js';

/**
 * Ordinary projects whose files look like what the content rules refuse, and must pass (issue
 * 23): `.env.example` placeholders, docs with the public Hardhat/Anvil keys, hashes in lockfiles,
 * minified vendor bundles, generated protobuf code, notebooks with outputs, benign lifecycle
 * scripts, an ordinary `setup.py`, a vendored jar under a test folder, UTF-16 resources, a `.git`
 * folder with only sample hooks. Each sits on a real project of BENIGN_PROJECTS (complexity rule).
 */
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const sri = (s: string) => `sha512-${createHash('sha512').update(s).digest('base64')}`;

const envExample: Files = {
  '.env.example': [
    '# Copy to .env and fill in',
    'NODE_ENV=development',
    'PORT=3000',
    'API_KEY=<your-key>',
    'DB_PASSWORD=changeme',
    'SESSION_SECRET=xxx',
    'GITHUB_TOKEN=${GITHUB_TOKEN}',
    'STRIPE_SECRET_KEY=sk_test_your_key_here',
    'DATABASE_URL=postgres://postgres:postgres@localhost:5432/todos',
    'REDIS_URL=redis://localhost:6379',
    'AMQP_URL=amqp://guest:guest@rabbitmq:5672',
    'PRIVATE_KEY=0x' + '<64 hex characters>',
    '',
  ].join('\n'),
  'docker-compose.yml': [
    'services:',
    '  db:',
    '    image: postgres:16',
    '    environment:',
    '      POSTGRES_PASSWORD: postgres',
    '      POSTGRES_USER: postgres',
    '  app:',
    '    build: .',
    '    environment:',
    '      DATABASE_URL: postgres://postgres:postgres@db:5432/app',
    '      JWT_SECRET: ${JWT_SECRET}',
    '      API_TOKEN: ${API_TOKEN:?set me}',
    '',
  ].join('\n'),
  'docs/config.md': [
    '# Configuration',
    '',
    'Set `DATABASE_URL` to `postgres://user:password@host:5432/db` and `MONGO_URL` to',
    '`mongodb+srv://<user>:<password>@cluster0.example.mongodb.net/app`.',
    'Example AWS key id from the AWS docs: `AKIAIOSFODNN7EXAMPLE`.',
    '',
  ].join('\n'),
};

const hardhatDocs: Files = {
  'README.md': [
    '# Local chain',
    '',
    'Start `npx hardhat node`; it funds these public development accounts:',
    '',
    ...HARDHAT_ACCOUNT_KEYS.slice(0, 5).map((k, i) => `Account #${i}: Private Key: 0x${k}`),
    '',
    'Anvil prints the same keys. Never use them on a real network.',
    '',
  ].join('\n'),
  '.env.example': `PRIVATE_KEY=${HARDHAT_ACCOUNT_KEYS[0]}\nRPC_URL=http://127.0.0.1:8545\n`,
  'hardhat.config.js': `module.exports = {\n  solidity: '0.8.24',\n  networks: {\n    localhost: {\n      url: 'http://127.0.0.1:8545',\n      accounts: [\n${HARDHAT_ACCOUNT_KEYS.slice(
    0,
    3,
  )
    .map((k) => `        '0x${k}',`)
    .join('\n')}\n      ],\n    },\n  },\n};\n`,
  'test/fixtures/anvil-keys.json': JSON.stringify(HARDHAT_ACCOUNT_KEYS, null, 2),
};

const lockfiles: Files = {
  'package-lock.json': JSON.stringify(
    {
      name: 'todo-api',
      lockfileVersion: 3,
      packages: Object.fromEntries(
        ['express', 'debug', 'ms', 'qs', 'send'].map((n) => [
          `node_modules/${n}`,
          {
            version: '1.0.0',
            resolved: `https://registry.npmjs.org/${n}/-/${n}-1.0.0.tgz`,
            integrity: sri(n),
          },
        ]),
      ),
    },
    null,
    2,
  ),
  'yarn.lock': ['express', 'debug']
    .map(
      (n) =>
        `${n}@^1.0.0:\n  version "1.0.0"\n  resolved "https://registry.yarnpkg.com/${n}/-/${n}-1.0.0.tgz#${sha256(n).slice(0, 40)}"\n  integrity ${sri(n)}\n`,
    )
    .join('\n'),
  'Cargo.lock': ['serde', 'tokio']
    .map(
      (n) =>
        `[[package]]\nname = "${n}"\nversion = "1.0.0"\nsource = "registry+https://github.com/rust-lang/crates.io-index"\nchecksum = "${sha256(n)}"\n`,
    )
    .join('\n'),
  'go.sum':
    ['golang.org/x/text', 'github.com/spf13/cobra']
      .map(
        (m) =>
          `${m} v1.0.0 h1:${createHash('sha256').update(m).digest('base64')}\n${m} v1.0.0/go.mod h1:${createHash(
            'sha256',
          )
            .update(m + 'mod')
            .digest('base64')}`,
      )
      .join('\n') + '\n',
  'poetry.lock': `[[package]]\nname = "flask"\nversion = "3.0.3"\nfiles = [\n    {file = "flask-3.0.3-py3-none-any.whl", hash = "sha256:${sha256('flask')}"},\n]\n`,
  'requirements.lock': `flask==3.0.3 \\\n    --hash=sha256:${sha256('flask-wheel')}\n`,
};

/** A minified vendor bundle: long lines, `Function("return this")`, atob, an inline source map. */
function minified(): string {
  const parts: string[] = ['/*! vendor.min.js v3.7.1 | MIT */'];
  let body =
    '!function(e,t){"use strict";var n=Function("return this")(),r=n.atob?function(e){return n.atob(e)}:null;';
  for (let i = 0; i < 300; i++)
    body += `function a${i}(e,t){return e&&t?e[${i}]||t.call(e,${i}):void 0}var b${i}=typeof e=="object"&&e!==null?e.k${i}:"k${i}";`;
  body += 'e.decode=r,e.version="3.7.1"}(window,document);';
  parts.push(body);
  parts.push(
    `//# sourceMappingURL=data:application/json;charset=utf-8;base64,${Buffer.from(JSON.stringify({ version: 3, sources: ['src/index.js'], mappings: 'AAAA'.repeat(200) })).toString('base64')}`,
  );
  return parts.join('\n') + '\n';
}

/** `*_pb2.py` as protoc writes it: a serialized descriptor full of byte escapes. */
function protobufPy(): string {
  const desc = [...randomBytes(400)].map((b) => `\\x${b.toString(16).padStart(2, '0')}`).join('');
  return `# -*- coding: utf-8 -*-\n# Generated by the protocol buffer compiler.  DO NOT EDIT!\n# source: todo.proto\n"""Generated protocol buffer code."""\nfrom google.protobuf import descriptor_pool as _descriptor_pool\nfrom google.protobuf.internal import builder as _builder\n\nDESCRIPTOR = _descriptor_pool.Default().AddSerializedFile(b'\\n\\ntodo.proto${desc}')\n\n_globals = globals()\n_builder.BuildMessageAndEnumDescriptors(DESCRIPTOR, _globals)\n`;
}

function protobufGo(): string {
  const bytes = [...randomBytes(256)].map((b) => `0x${b.toString(16).padStart(2, '0')}`);
  const rows: string[] = [];
  for (let i = 0; i < bytes.length; i += 16)
    rows.push('\t' + bytes.slice(i, i + 16).join(', ') + ',');
  return `// Code generated by protoc-gen-go. DO NOT EDIT.\n\npackage todopb\n\nvar file_todo_proto_rawDesc = []byte{\n${rows.join('\n')}\n}\n`;
}

function notebook(): string {
  return JSON.stringify(
    {
      cells: [
        { cell_type: 'markdown', metadata: {}, source: ['# Visits per day\n'] },
        {
          cell_type: 'code',
          execution_count: 3,
          metadata: {},
          source: ['import pandas as pd\n', 'df = pd.read_csv("visits.csv")\n', 'df.plot()'],
          outputs: [
            {
              output_type: 'display_data',
              data: {
                'image/png': randomBytes(3000).toString('base64'),
                'text/plain': ['<Figure size 640x480>'],
              },
              metadata: {},
            },
            {
              output_type: 'stream',
              name: 'stdout',
              text: [`run id ${randomBytes(16).toString('hex')}\n`],
            },
          ],
        },
      ],
      metadata: { kernelspec: { name: 'python3', display_name: 'Python 3' } },
      nbformat: 4,
      nbformat_minor: 5,
    },
    null,
    1,
  );
}

const benignScripts: Files = {
  'package.json': JSON.stringify(
    {
      name: 'todo-api',
      version: '1.2.0',
      scripts: {
        preinstall: 'npx only-allow npm',
        install: 'node-gyp rebuild',
        postinstall: 'node scripts/build.js',
        prepare: 'husky',
        prepublishOnly: 'npm run build && npm test',
        build: 'tsc -p .',
        fetch: 'curl -fsSL https://example.org/data.json -o data/data.json',
      },
    },
    null,
    2,
  ),
  'scripts/build.js': `import { cpSync } from 'node:fs';\ncpSync('assets', 'dist/assets', { recursive: true });\n`,
  Dockerfile:
    'FROM node:22\nRUN curl -fsSL https://deb.nodesource.com/setup_22.x | bash -\nCOPY . /app\n',
  'docs/install.md':
    '# Install\n\n```sh\ncurl --proto =https -sSf https://sh.rustup.rs | sh\n```\n',
};

const setupPy: Files = {
  'setup.py': `import subprocess\nfrom setuptools import setup, find_packages\n\nabout = {}\nexec(open("app/version.py").read(), about)\n\n\ndef git_sha():\n    try:\n        return subprocess.check_output(["git", "rev-parse", "HEAD"]).decode().strip()\n    except Exception:\n        return "unknown"\n\n\nsetup(\n    name="shortener",\n    version=about["__version__"],\n    packages=find_packages(),\n    install_requires=["flask>=3"],\n)\n`,
  'app/version.py': '__version__ = "1.4.0"\n',
  'app/client.py': `import urllib.request\n\n\ndef fetch(url):\n    with urllib.request.urlopen(url, timeout=5) as r:\n        return r.read()\n`,
  'app/codec.py': `import base64\n\n\ndef decode_token(value):\n    return base64.b64decode(value).decode()\n`,
};

const CLASS = () =>
  Buffer.concat([Buffer.from([0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 0x34]), randomBytes(400)]);
const vendoredJar: Files = {
  'test/fixtures/lib/json-simple-1.1.jar': zipOf({
    'META-INF/MANIFEST.MF': 'Manifest-Version: 1.0\nCreated-By: 1.8.0 (Oracle)\n',
    'org/json/simple/JSONObject.class': CLASS(),
    'org/json/simple/JSONArray.class': CLASS(),
  }),
  'gradle/wrapper/gradle-wrapper.jar': zipOf({
    'META-INF/MANIFEST.MF': 'Manifest-Version: 1.0\n',
    'org/gradle/wrapper/GradleWrapperMain.class': CLASS(),
  }),
  'gradle/wrapper/gradle-wrapper.properties':
    'distributionUrl=https\\://services.gradle.org/distributions/gradle-8.7-bin.zip\n',
};

const utf16AndGit: Files = {
  'resources/strings.rc': Buffer.from(
    '\ufeffSTRINGTABLE\r\nBEGIN\r\n  IDS_TITLE "Todo"\r\n  IDS_SAVE "Save changes"\r\nEND\r\n',
    'utf16le',
  ),
  'resources/readme-utf16be.txt': Buffer.from(
    'Plain notes in UTF-16 without a mark.\n',
    'utf16le',
  ).swap16(),
  '.git/HEAD': 'ref: refs/heads/main\n',
  '.git/config':
    '[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n[remote "origin"]\n\turl = https://github.com/acme/todo.git\n',
  '.git/hooks/pre-commit.sample': '#!/bin/sh\n# An example hook script\nexit 0\n',
  '.git/hooks/pre-push.sample': '#!/bin/sh\nexit 0\n',
};

const generated: Files = {
  'app/todo_pb2.py': protobufPy(),
  'gen/todopb/todo.pb.go': protobufGo(),
  'notebooks/visits.ipynb': notebook(),
  'static/vendor/vendor.min.js': minified(),
};

const JWT_IO =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c';
const pemHelpersAndPublicKeys: Files = {
  'src/crypto/pem.ts':
    "export const toPem = (der: Buffer) =>\n  '-----BEGIN PRIVATE KEY-----\\n' +\n  der.toString('base64').replace(/(.{64})/g, '$1\\n') +\n  '\\n-----END PRIVATE KEY-----\\n';\n",
  'tools/pem.py':
    'def to_pem(body: str) -> str:\n    return f"-----BEGIN RSA PRIVATE KEY-----\\n{body}\\n-----END RSA PRIVATE KEY-----\\n"\n',
  'web/src/firebase.ts':
    "import { initializeApp } from 'firebase/app';\n\nexport const app = initializeApp({\n  apiKey: 'AIzaSyB2x7Qm4Rt9Vw1Yz3Cd5Ef7Gh9Jk1Lm3Np',\n  authDomain: 'todo-5c1e2.firebaseapp.com',\n  projectId: 'todo-5c1e2',\n  appId: '1:905181241213:web:4b6e0f1d2c3a',\n});\n",
  'test/auth.test.ts': `const token = '${JWT_IO}';\nexpect(decode(token).name).toBe('John Doe');\n`,
  'docs/keys.md':
    'Paste the key; it starts with\n\n    -----BEGIN PRIVATE KEY-----\n\nand ends with the matching END line.\n',
};
const nativeAndGitSubmodules: Files = {
  'binding.gyp':
    "{\n  'targets': [\n    {\n      'target_name': 'addon',\n      'sources': [ 'src/addon.cc' ],\n      'include_dirs': [ \"<!(node -p \\\"require('node-addon-api').include\\\")\" ],\n      'defines': [ 'NAPI_DISABLE_CPP_EXCEPTIONS' ],\n    }\n  ]\n}\n",
  'native/build.rs':
    'fn main() {\n    println!("cargo:rerun-if-changed=src/native.c");\n    cc::Build::new().file("src/native.c").compile("native");\n}\n',
  '.git/HEAD': 'ref: refs/heads/main\n',
  '.git/config':
    '[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n[remote "origin"]\n\turl = https://github.com/acme/todo.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n[branch "main"]\n\tremote = origin\n\tmerge = refs/heads/main\n[submodule "vendor/lib"]\n\turl = https://github.com/acme/lib.git\n\tactive = true\n[user]\n\tname = Ada\n\temail = ada@example.com\n',
  '.git/modules/vendor/lib/config':
    '[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n\tworktree = ../../../../vendor/lib\n[remote "origin"]\n\turl = https://github.com/acme/lib.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n',
  'vendor/lib/.git': 'gitdir: ../../.git/modules/vendor/lib\n',
};

/** A service's published keys: a JWKS of public EC and RSA keys, and an SVG icon set's paths. */
const publicJwk = (type: 'ec' | 'rsa') => {
  const { privateKey } =
    type === 'ec'
      ? generateKeyPairSync('ec', { namedCurve: 'P-256' })
      : generateKeyPairSync('rsa', { modulusLength: 2048 });
  const {
    d: _d,
    p: _p,
    q: _q,
    dp: _dp,
    dq: _dq,
    qi: _qi,
    ...pub
  } = privateKey.export({
    format: 'jwk',
  });
  return { ...pub, use: 'sig', kid: randomBytes(8).toString('hex') };
};
const publicJwks: Files = {
  'public/.well-known/jwks.json': JSON.stringify(
    { keys: [publicJwk('ec'), publicJwk('rsa')] },
    null,
    2,
  ),
  'src/auth/verify.ts':
    "import { createRemoteJWKSet, jwtVerify } from 'jose';\n\nconst jwks = createRemoteJWKSet(new URL('https://auth.example.com/.well-known/jwks.json'));\n// keys are { kty, crv, x, y } or { kty, n, e }: public only\nexport const verify = (token: string) => jwtVerify(token, jwks);\n",
  'assets/icons.json': JSON.stringify(
    { check: { d: 'M9 16.17L4.83 12l-1.42 1.41L9 19 21 7l-1.41-1.41z' }, kty: 'icon-set' },
    null,
    2,
  ),
};

const benign: Array<[string, keyof typeof BENIGN_PROJECTS, Files]> = [
  ['pem-helpers-firebase-jwt-io', 'node-express-api', pemHelpersAndPublicKeys],
  ['native-addon-and-git-submodules', 'node-express-api', nativeAndGitSubmodules],
  ['env-example-placeholders', 'node-express-api', envExample],
  ['hardhat-docs-keys', 'node-express-api', hardhatDocs],
  ['lockfile-hashes', 'rust-lib', lockfiles],
  ['generated-and-vendored', 'python-flask-app', generated],
  ['benign-lifecycle-scripts', 'node-express-api', benignScripts],
  ['ordinary-setup-py', 'python-flask-app', setupPy],
  ['vendored-test-jar', 'go-cli', vendoredJar],
  ['utf16-resources-and-sample-hooks', 'static-web', utf16AndGit],
  ['public-jwks', 'node-express-api', publicJwks],
];

export const cases: CorpusCase[] = benign.flatMap(([name, base, extra]) =>
  (['zip', 'tar.gz'] as const).flatMap((compression) =>
    (['', 'project/'] as const).map((prefix) => ({
      name: `benign-secrets-lookalikes/${name}${prefix ? '@nested' : '@root'}-${compression}`,
      family: 'benign-secrets-lookalikes',
      hostile: false,
      compression,
      build: () => pack(compression, prefixed(prefix, { ...BENIGN_PROJECTS[base]!, ...extra })),
    })),
  ),
);
