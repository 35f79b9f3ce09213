import js from '@eslint/js';
import tseslint from 'typescript-eslint';

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
      'src/chain/cli.ts',
      'src/chain/compile.ts',
      'mcp/main.ts',
      'mcp/config.ts',
      'test/**',
      'vitest.config.ts',
    ],
    rules: { 'no-restricted-properties': 'off' },
  },
);
