// `npm run build`: dist/ from nothing, so a file whose source is gone never ships.
// - The library (every mcpctx/* entry): tsc, one .js and .d.ts per source file, src/cli left out.
// - The CLI (dist/cli/main.js, the package's bin): one esbuild bundle of src/cli/main.ts, split at
//   each command's dynamic import. Node 20 has no compile cache, and loading our ~300 modules one
//   file at a time cost more than the work of a short command (130 files, 100 ms, before the
//   gateway could start its upstream); a bundle loads the same code in a few files. Packages stay
//   external (node_modules), and every chunk sits in dist/cli, two levels below the package root
//   like the files it was built from, so paths taken from import.meta.url still hold
//   (../../package.json, ../../examples/, the optimizer's ./_build-worker.js, built as an entry).
import { spawnSync } from 'node:child_process';
import { chmodSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('../', import.meta.url));
const require = createRequire(import.meta.url);
process.chdir(root);

rmSync('dist', { recursive: true, force: true });

const tsc = spawnSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
if (tsc.status !== 0) process.exit(tsc.status ?? 1);

await build({
  entryPoints: { main: 'src/cli/main.ts', '_build-worker': 'src/optimizer/server/_build-worker.ts' },
  outdir: 'dist/cli',
  entryNames: '[name]',
  chunkNames: '[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  sourcemap: true,
  logLevel: 'warning',
});
chmodSync('dist/cli/main.js', 0o755);

// The site's in-browser verify (src/results/site/browser): one self-contained script, no package
// left outside (a reader's browser has no node_modules, and the site fetches nothing from a CDN).
// The counting code is the CLI's own; the two tokens files bound to Node are swapped for their
// *.browser.ts twins: the rank table from gpt-tokenizer's ES module instead of require, and no
// node:crypto (the page hashes with SubtleCrypto). Any other Node module reached fails the build.
const BROWSER_TWINS = /^\.\/_(rank-table|sha256)\.js$/;
const tokensDir = join(root, 'src', 'tokens');
await build({
  entryPoints: { recount: 'src/results/site/browser/recount.ts' },
  outdir: 'dist/site',
  bundle: true,
  format: 'iife',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  logLevel: 'warning',
  define: { MCPCTX_TOKENIZER_VERSION: JSON.stringify(require('gpt-tokenizer/package.json').version) },
  plugins: [
    {
      name: 'browser-twins',
      setup(build) {
        build.onResolve({ filter: BROWSER_TWINS }, (args) =>
          dirname(args.importer) === tokensDir ? { path: join(tokensDir, args.path.replace(/\.js$/, '.browser.ts')) } : undefined,
        );
      },
    },
  ],
});
// Loaded only when a reader presses verify; bounded so a dependency update cannot quietly make it huge.
const RECOUNT_MAX_BYTES = 4_000_000;
const recountBytes = statSync('dist/site/recount.js').size;
if (recountBytes > RECOUNT_MAX_BYTES) {
  console.error(`dist/site/recount.js is ${recountBytes} bytes, over ${RECOUNT_MAX_BYTES}: look at what the bundle pulls in`);
  process.exit(1);
}

// gpt-tokenizer's o200k_base rank table as JSON, which loads in half the time of its JavaScript
// module (src/tokens/_rank-table.ts reads it, and checks the version before trusting it).
writeFileSync(
  'dist/o200k_base.ranks.json',
  JSON.stringify({
    package: 'gpt-tokenizer',
    version: require('gpt-tokenizer/package.json').version,
    encoding: 'o200k_base',
    ranks: require('gpt-tokenizer/bpeRanks/o200k_base').default,
  }),
);
