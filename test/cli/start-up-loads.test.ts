// What each command loads before it does anything, read from the sources (test/support/import-graph.ts):
// the CLI's entry loads no command and no heavy package, and each command loads at start only the
// heavy packages it always needs. Everything else (the tokenizer's tables, ajv, SQLite, the model and
// MCP SDKs, YAML) is loaded where it is first used (`lazyRequire`, `import()`), which this walk skips.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ROOT, walkImports, type Walk } from '../support/import-graph.js';

/** Packages that cost 10 ms or more to load (measured: gpt-tokenizer 280 ms, @anthropic-ai/sdk 170, @modelcontextprotocol/server 146, ...). */
const HEAVY: ReadonlySet<string> = new Set([
  'gpt-tokenizer',
  'ajv',
  'ajv-formats',
  'better-sqlite3',
  'playwright-core',
  '@modelcontextprotocol/server',
  '@modelcontextprotocol/client',
  '@anthropic-ai/sdk',
  'openai',
  'zod',
  'minisearch',
  '@jmespath-community/jmespath',
  're2js',
  'yaml',
  'jsonc-parser',
  'smol-toml',
  'badge-maker',
  '@toon-format/toon',
  'ioredis',
]);

/** The heavy packages a command may load at its start, because every run of it uses them. */
const LOADED_AT_START: Readonly<Record<string, readonly string[]>> = {
  measure: [],
  verify: [],
  'inspect-result': [],
  optimizer: ['@modelcontextprotocol/server', 'zod'],
  optimize: [],
  gateway: [],
  site: [],
  sweep: [],
  audit: [],
  experiment: [],
  calibrate: [],
  routing: [],
  // The hook runs once per tool call: its read_result server's SDK loads when that server starts.
  hook: [],
  auth: [],
};

function startUpWalk(file: string): Walk {
  // A package's package.json (read for its version) is data, not the package's code.
  const isHeavy = ({ packageName, specifier }: { packageName?: string; specifier: string }): boolean =>
    packageName !== undefined && HEAVY.has(packageName) && !specifier.endsWith('/package.json');
  return walkImports(join(ROOT, file), { isForbidden: isHeavy, followDeferred: false });
}

describe('what a command loads at start', () => {
  it('the CLI entry loads no command module and no heavy package (--version, --help)', () => {
    const walk = startUpWalk('src/cli/main.ts');
    expect(walk.forbidden.map((reach) => reach.chain.join(' → '))).toEqual([]);
    const commands = walk.files.filter((file) => /^src\/cli\/[a-z-]+\.ts$/.test(file) && file !== 'src/cli/main.ts');
    expect(commands).toEqual([]);
  });

  it.each(Object.entries(LOADED_AT_START))('%s loads at start only the heavy packages it always uses', (command, allowed) => {
    const reached = [...new Set(startUpWalk(`src/cli/${command}.ts`).forbidden.map((reach) => reach.module.split('/').slice(0, reach.module.startsWith('@') ? 2 : 1).join('/')))];
    expect(reached.sort()).toEqual([...allowed].sort());
  });

  it('gateway starts a stdio client\'s servers before it loads the gateway itself (sessions, shaping, trust, stores, fronts)', () => {
    const files = startUpWalk('src/cli/gateway.ts').files;
    expect(files).toContain('src/gateway/upstream/_prepared.ts');
    expect(files.filter((file) => /^src\/gateway\/(?:_[a-z-]+\.ts|index\.ts|results\/|trust\/|receipts\/|front\/|catalog\/)/.test(file))).toEqual([]);
  });

  it('every command has an entry above', async () => {
    const { COMMANDS } = await import('../../src/cli/_commands.js');
    expect(COMMANDS.map((entry) => entry.name).sort()).toEqual(Object.keys(LOADED_AT_START).sort());
  });
});

describe('the walker and deferred loads', () => {
  const fixture = fileURLToPath(new URL('../entries/fixtures/lazy/entry.ts', import.meta.url));
  const forbidden = { isForbidden: ({ builtin, packageName }: { builtin?: string; packageName?: string }) => builtin === 'fs' || packageName === 'better-sqlite3' };

  it('follows lazyRequire and import() by default', () => {
    expect(walkImports(fixture, forbidden).forbidden.map((reach) => reach.module).sort()).toEqual(['better-sqlite3', 'node:fs']);
  });

  it('leaves them out of a start-up walk', () => {
    expect(walkImports(fixture, { ...forbidden, followDeferred: false }).forbidden).toEqual([]);
  });
});
