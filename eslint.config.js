import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Layer rules (docs/architecture.md, "Layers"): an import that runs back up fails `npm run lint`.
// Only relative specifiers are ours: `@x402/core/http` is a package, not src/http/.
const ours = (names) => `^\\.{1,2}/(?:.*/)?(?:${names.join('|')})(?:/|\\.js$)`;
const layer = (files, regex, message) => ({
  files,
  rules: { 'no-restricted-imports': ['error', { patterns: [{ regex, message }] }] },
});

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'data/', 'coverage/', '.prof/', '.tmp-*/', 'assets/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      'no-restricted-properties': [
        'error',
        {
          object: 'process',
          property: 'env',
          message: 'Read configuration through loadConfig(env) only.',
        },
      ],
    },
  },
  {
    files: [
      'src/config.ts',
      'src/main.ts',
      'src/commands.ts',
      'tools/chain/cli.ts',
      'tools/chain/compile.ts',
      'mcp/main.ts',
      'mcp/config.ts',
      'test/**',
      'vitest.config.ts',
    ],
    rules: { 'no-restricted-properties': 'off' },
  },
  layer(
    ['src/wire/**'],
    '^(?!zod$|\\./|\\.\\./errors\\.js$)',
    'src/wire/ imports only zod, its own files and the error catalog.',
  ),
  layer(
    ['src/scan/**'],
    '^\\.\\./(?!errors\\.js$)',
    'The scan library reads archives; it knows nothing of the service.',
  ),
  layer(
    ['src/domain/**'],
    `${ours(['http', 'mcp', 'client', 'chain', 'deps', 'runtime', 'main'])}|^\\.{1,2}/(?:.*/)?jobs/(?:runner|scheduler)\\.js$`,
    'The domain imports no transport, process wiring, job runtime or chain adapter: take a port (src/domain/ports.ts).',
  ),
  layer(
    ['src/x402/**'],
    ours(['domain', 'http', 'mcp', 'client', 'chain', 'jobs', 'deps', 'runtime', 'main']),
    'x402 is payment plumbing: it knows no marketplace rule (schemas come from src/wire/).',
  ),
  layer(
    ['src/client/**'],
    ours([
      'domain',
      'http',
      'mcp',
      'db',
      'storage',
      'embeddings',
      'jobs',
      'chain',
      'deps',
      'runtime',
      'main',
    ]),
    'The client speaks the wire: import src/wire/, never the domain or the server.',
  ),
  layer(
    ['mcp/**'],
    '^\\.{1,2}/(?:.*/)?src/(?:domain|http|db|storage|embeddings|jobs|chain|deps|runtime|main)(?:/|\\.js$)',
    'The MCP server is a client: import src/wire/, src/client/ and src/scan/, never the domain or the server.',
  ),
  layer(
    ['src/db/**', 'src/storage/**', 'src/embeddings/**'],
    ours([
      'domain',
      'http',
      'mcp',
      'client',
      'x402',
      'jobs',
      'chain',
      'deps',
      'runtime',
      'main',
      'wire',
    ]),
    'Infrastructure knows no domain: the domain uses it, never the reverse.',
  ),
  layer(
    ['src/jobs/**'],
    ours(['domain', 'http', 'mcp', 'client', 'chain', 'deps', 'runtime', 'main']),
    'Jobs are generic: the runtime registers their handlers.',
  ),
  layer(
    ['src/telemetry/**'],
    ours(['domain', 'http', 'mcp', 'client', 'jobs', 'chain', 'deps', 'runtime', 'main']),
    'Telemetry holds the instruments and the tracer; the domain reaches them through a port.',
  ),
  layer(
    ['src/chain/**'],
    ours(['http', 'mcp', 'runtime', 'main', 'tools']),
    'src/chain/ holds the runtime adapters; the developer tools depend on the app, never the reverse.',
  ),
);
