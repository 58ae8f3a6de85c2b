// Flat config: typescript-eslint's recommended rules plus the two conventions DESIGN.md asks for.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  // docs/leaderboard is generated output (npm run leaderboard), not source.
  { ignores: ['dist/**', 'node_modules/**', 'bench/results/**', 'coverage/**', 'docs/leaderboard/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: 'module',
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        setImmediate: 'readonly',
        URL: 'readonly',
        TextDecoder: 'readonly',
        TextEncoder: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(assert|buffer|child_process|crypto|events|fs|fs/promises|os|path|process|readline|stream|stream/promises|string_decoder|timers|timers/promises|url|util|worker_threads|perf_hooks|net|http|tty|zlib)$',
              message: 'Import Node built-ins with the node: protocol.',
            },
          ],
        },
      ],
    },
  },
);
