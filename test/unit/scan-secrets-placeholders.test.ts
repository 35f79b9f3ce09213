import { describe, expect, it } from 'vitest';
import { scanArchive } from '../../src/scan/scan-archive.js';
import { isPlaceholder } from '../../src/scan/secrets.js';
import { DEFAULT_SCAN_LIMITS } from '../../src/scan/types.js';
import { type Files, uniqueProject, zipOf } from '../helpers/archives.js';
import { type IntSource, seededInt } from '../helpers/seeded.js';
import { token } from '../scan-corpus/content-variants.js';

/**
 * A placeholder is judged as a whole value: `your_password_here` stands in for a secret, a random
 * password that happens to contain "test" or "your" is one.
 */
const scanFiles = (files: Files) =>
  scanArchive(zipOf({ ...uniqueProject(), ...files }), 'zip', DEFAULT_SCAN_LIMITS);

/** Words the old substring rule let through wherever they stood in a value. */
const WORDS = [
  'test',
  'Test',
  'your',
  'YOUR',
  'fake',
  'sample',
  'example',
  'dummy',
  'insert',
  'replace',
  'redacted',
  'change',
];

/** `n` random letters and digits with `word` spliced in at a random place. */
const withWord = (int: IntSource, n: number, word: string): string => {
  const t = token(n - word.length, undefined, int);
  const at = int(1, t.length);
  return t.slice(0, at) + word + t.slice(at);
};

/** What Django's startproject draws from, with `word` spliced in. */
const djangoWith = (int: IntSource, word: string): string => {
  const abc = 'abcdefghijklmnopqrstuvwxyz0123456789!@#$%^&*(-_+)';
  const t = Array.from({ length: 50 - word.length }, () => abc[int(abc.length)]).join('');
  return `${t.slice(0, 20)}${word.toLowerCase()}${t.slice(20)}`;
};

/** One file per rule that asked the old PLACEHOLDER, its real secret containing `word`. */
const leaks = (int: IntSource, word: string): Record<string, [string, string]> => ({
  '.env': [`DB_PASSWORD=Xk9${word}Q2#pLm7vR\n`, 'password'],
  'config/app.py': [`api_key = "${withWord(int, 24, word)}"\n`, 'high_entropy_token'],
  'deploy/values.yaml': [
    `auth:\n  client_secret: ${withWord(int, 32, word)}\n`,
    'high_entropy_token',
  ],
  'bot/llm.py': [
    `client = OpenAI(api_key="sk-proj-${withWord(int, 48, word)}")\n`,
    'openai_style_key',
  ],
  'deploy/aws/credentials': [
    `[default]\naws_secret_access_key = ${withWord(int, 40, word)}\n`,
    'aws_secret_access_key',
  ],
  'src/blob.cs': [
    `var c = "DefaultEndpointsProtocol=https;AccountName=shop;AccountKey=${withWord(int, 86, word)}==";\n`,
    'azure_storage_key',
  ],
  '.npmrc': [`//npm.acme.io/:_authToken=${withWord(int, 36, word)}\n`, 'npm_auth_token'],
  'mysite/settings.py': [`SECRET_KEY = '${djangoWith(int, word)}'\n`, 'django_secret_key'],
  'docker-compose.yml': [
    `services:\n  worker:\n    environment:\n      REDIS_URL: redis://:${withWord(int, 20, word)}@cache.prod.acme.net:6379/0\n`,
    'redis_url_password',
  ],
});

/** Draws per word: every rule sees 10 values with the word at different places. */
const DRAWS = 10;

describe('a real secret that merely contains a placeholder word', () => {
  // seeded: the same 10 values a word on every run, so a miss names a value that can be made again
  it.each(WORDS)('containing "%s" is found by every rule', async (word) => {
    const int = seededInt(`placeholder-word:${word}`);
    const missed: string[] = [];
    for (let d = 0; d < DRAWS; d++) {
      const files = leaks(int, word);
      const out = await scanFiles(
        Object.fromEntries(Object.entries(files).map(([f, [t]]) => [f, t])),
      );
      const found = new Map(
        (out.verdict === 'reject' ? out.findings : []).map((f) => [f.file, f.detail]),
      );
      missed.push(
        ...Object.entries(files)
          .filter(([f, [, kind]]) => found.get(f) !== kind)
          .map(([f, [t, kind]]) => `${f} (${kind}, got ${found.get(f) ?? 'nothing'}): ${t}`),
      );
    }
    expect(missed).toEqual([]);
  });

  it('a connection URL to a host named test-… still holds a password', async () => {
    const out = await scanFiles({
      '.env': 'CACHE_URL=redis://:Z8kq2Lm9Pw4xR7@test-cache.internal:6379\n',
    });
    expect(out.verdict === 'reject' && out.findings[0]).toMatchObject({
      check: 'secret:url_credentials',
      file: '.env',
    });
  });

  it('2,000 random tokens with a placeholder word inside are not placeholders', () => {
    const int = seededInt('placeholder-words-inside');
    const judged = Array.from({ length: 2000 }, (_, i) =>
      withWord(int, 16 + (i % 40), WORDS[i % 12]!),
    );
    expect(judged.filter(isPlaceholder)).toEqual([]);
  });
});

describe('values that are placeholders stay accepted', () => {
  it.each([
    ['.env', 'DB_PASSWORD=your_password_here\nAPI_TOKEN=changeme\nSECRET=<token>\n'],
    ['.env.local', 'JWT_SECRET=${JWT_SECRET}\nAPI_KEY={{ api_key }}\nDB_PASS=xxxxxxxxxxxx\n'],
    [
      '.env.production',
      'SESSION_SECRET=********\nSTRIPE_KEY=REDACTED\nTOKEN=InsertYourTokenHere\n',
    ],
    ['.env.staging', 'APP_PASSWORD=fake-password-123456\nMY_SECRET=mysecretpassword\n'],
    ['.env.demo', 'DB_PASSWORD=mysecret123\nAPI_KEY=your-api-key-here\nTOKEN=changeme0000\n'],
    ['src/config.ts', 'const apiKey = "YOUR_API_KEY_GOES_HERE_12345";\n'],
    ['src/llm.py', 'client = OpenAI(api_key="sk-your-openai-api-key-here-1234567890abcdef")\n'],
    ['config/app.yml', 'auth:\n  client_secret: your-client-secret-goes-here\n'],
    [
      'mysite/settings.py',
      "SECRET_KEY = 'django-insecure-change-me-before-deploying-to-production'\n",
    ],
    ['mysite/prod.py', "SECRET_KEY = '{{ secret_key }}-abcdefghijklmnopqrstuvwxyz0123'\n"],
    ['docs/setup.md', 'Use `postgres://app:S3cretPassw0rd99@db.example.com:5432/app`.\n'],
    ['docs/cache.md', 'Set `redis://:Zq8Lm2Kx9Wp4Vn7@your-redis-host:6379`.\n'],
    ['.npmrc', '//registry.npmjs.org/:_authToken=${NPM_TOKEN}\n'],
    ['src/pay.rb', 'Stripe.api_key = "sk_test_4eC39HqLyjWDarjtT1zdp7dc"\n'],
    ['.env.test', 'STRIPE_SECRET_KEY=sk_test_51HxQ2kLm9Pw4xR7Zq8Lm2Kx9Wp4Vn7\n'],
    ['.pypirc', '[pypi]\npassword = pypi-your-token-here-xxxxxxxxxxxx\n'],
  ])('%s', async (file, text) => {
    const out = await scanFiles({ [file]: text });
    expect(out.verdict === 'reject' ? out.findings : 'accept').toBe('accept');
  });
});

describe('stand-in words with a number of their own are a real-looking password', () => {
  it.each([
    'mysecretpassword1',
    'MySecretPassword7',
    'Password2024',
    'changeme42',
    'testpass9',
    'SuperSecret86',
  ])('MY_SECRET=%s in a .env is refused', async (value) => {
    const out = await scanFiles({ '.env': `MY_SECRET=${value}\n` });
    expect(out.verdict === 'reject' && out.findings[0]).toMatchObject({
      check: 'secret:named_value',
      file: '.env',
    });
  });

  it.each(['mysecretpassword1', 'Password2024', 'yourapikeyhere5'])(
    '%s is not a placeholder, its filler-numbered twin is',
    (value) => {
      expect(isPlaceholder(value)).toBe(false);
      expect(isPlaceholder(value.replace(/\d+$/, '123456'))).toBe(true);
    },
  );
});
