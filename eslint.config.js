// Flat config: typescript-eslint's recommended rules plus the two conventions DESIGN.md asks for.
import { readFileSync } from 'node:fs';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * What git ignores is output (dist/, the results/ and site/ that `npm start` writes, test-output/),
 * never source: lint skips it too, so running the README's first command cannot break `npm test`.
 * Plain .gitignore lines only (no negations): `/x/` is anchored at the root, `x/` matches anywhere.
 */
function gitignored() {
  const lines = readFileSync(new URL('.gitignore', import.meta.url), 'utf8').split('\n');
  return lines
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#') && !line.startsWith('!'))
    .map((line) => {
      const anchored = line.startsWith('/') || line.slice(0, -1).includes('/');
      const path = line.replace(/^\//, '').replace(/\/$/, '');
      const glob = line.endsWith('/') ? `${path}/**` : path;
      return anchored ? glob : `**/${glob}`;
    });
}

export default tseslint.config(
  // docs/leaderboard is generated output (npm run leaderboard), kept in git as the published figures.
  { ignores: [...gitignored(), 'bench/results/**', 'docs/leaderboard/**'] },
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
