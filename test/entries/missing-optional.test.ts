// An optional package that is not installed (better-sqlite3, a framework SDK for mcpctx/host/*, a
// model SDK) fails where it is used with MISSING_DEPENDENCY, naming the package and the npm command
// that installs it, not Node's bare ERR_MODULE_NOT_FOUND. Checked on the built package: a copy of
// dist/ and package.json in a temporary folder whose node_modules links every installed package
// but the one under test, so Node resolves exactly as in a project that left it out.
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../support/import-graph.js';

const NODE_MODULES = join(ROOT, 'node_modules');
const TEST_MS = 60_000;

let root: string;
beforeAll(() => {
  expect(existsSync(join(ROOT, 'dist', 'index.js')), 'run npm run build first').toBe(true);
  root = mkdtempSync(join(tmpdir(), 'mcpctx-missing-optional-'));
});
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

const installs = new Map<string, string>();

/** A copy of the built package (its .js files) whose node_modules has every installed package except `missing`. */
function installWithout(missing: string): string {
  const made = installs.get(missing);
  if (made !== undefined) return made;
  const dir = join(root, missing.replace('/', '+'));
  installs.set(missing, dir);
  cpSync(join(ROOT, 'dist'), join(dir, 'dist'), { recursive: true, filter: (source) => !/\.(?:d\.ts|map)$/.test(source) });
  cpSync(join(ROOT, 'package.json'), join(dir, 'package.json'));
  const modules = join(dir, 'node_modules');
  mkdirSync(modules);
  for (const name of readdirSync(NODE_MODULES)) {
    if (name === missing || name === '.bin') continue;
    if (!name.startsWith('@')) {
      symlinkSync(join(NODE_MODULES, name), join(modules, name));
      continue;
    }
    mkdirSync(join(modules, name));
    for (const scoped of readdirSync(join(NODE_MODULES, name))) {
      if (`${name}/${scoped}` !== missing) symlinkSync(join(NODE_MODULES, name, scoped), join(modules, name, scoped));
    }
  }
  return dir;
}

/** Runs `body` (an async function body using the package by name) in `dir` and returns the error it threw. */
async function thrownIn(dir: string, body: string): Promise<{ name: string; code: string; data: unknown; message: string } | null> {
  const script = `try { ${body}; console.log('null'); } catch (error) { console.log(JSON.stringify({ name: error.name, code: error.code, data: error.data, message: error.message })); }`;
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { cwd: dir, env: { PATH: process.env.PATH ?? '', ANTHROPIC_API_KEY: 'sk-test-not-used' }, timeout: TEST_MS });
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? 'null') as ReturnType<typeof thrownIn> extends Promise<infer T> ? T : never;
}

const CASES: ReadonlyArray<{ missing: string; what: string; body: string; neededFor: string }> = [
  {
    missing: 'better-sqlite3',
    what: "the gateway's SQLite offload store",
    body: "const { createSqliteStore } = await import('mcpctx/gateway'); createSqliteStore(':memory:')",
    neededFor: "the gateway's --store",
  },
  {
    missing: 'better-sqlite3',
    what: "the optimizer server's record store",
    body: "const { SqliteRecordStore } = await import('mcpctx/optimizer/server'); SqliteRecordStore.open('records.sqlite', { create: true })",
    neededFor: "the optimizer server's --store",
  },
  { missing: 'ai', what: 'mcpctx/host/ai-sdk', body: "await import('mcpctx/host/ai-sdk')", neededFor: 'mcpctx/host/ai-sdk' },
  { missing: '@langchain/core', what: 'mcpctx/host/langchain', body: "await import('mcpctx/host/langchain')", neededFor: 'mcpctx/host/langchain' },
  { missing: '@openai/agents', what: 'mcpctx/host/openai-agents', body: "await import('mcpctx/host/openai-agents')", neededFor: 'mcpctx/host/openai-agents' },
  {
    missing: '@anthropic-ai/claude-agent-sdk',
    what: 'mcpctx/host/claude-agent-sdk',
    body: "await import('mcpctx/host/claude-agent-sdk')",
    neededFor: 'mcpctx/host/claude-agent-sdk',
  },
  {
    missing: '@anthropic-ai/sdk',
    what: 'the Anthropic provider, at its first call',
    body: "const { anthropicProvider } = await import('mcpctx/providers'); await anthropicProvider({ baseUrl: 'http://127.0.0.1:9' }).chat({ model: 'm', messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], maxTokens: 1 })",
    neededFor: 'the Anthropic provider',
  },
];

describe('a missing optional package', () => {
  it.each(CASES)(
    '$missing: $what fails with MISSING_DEPENDENCY naming it and npm install',
    async ({ missing, body, neededFor }) => {
      const dir = installWithout(missing);
      const thrown = await thrownIn(dir, body);
      expect(thrown).toMatchObject({ name: 'McpctxError', code: 'MISSING_DEPENDENCY', data: { package: missing, install: `npm install ${missing}`, neededFor } });
      expect(thrown?.message).toContain(`${missing} is not installed, and ${neededFor} needs it: run npm install ${missing} where mcpctx is installed`);
      // Nothing was made on the way to the error (the record store checks its dependency before its file).
      expect(existsSync(join(dir, 'records.sqlite'))).toBe(false);
    },
    TEST_MS,
  );

  it('the entries that do not need it still load and work without it', async () => {
    const dir = installWithout('better-sqlite3');
    expect(await thrownIn(dir, "const { createMemoryStore } = await import('mcpctx/gateway'); createMemoryStore(); await import('mcpctx/optimizer/server')")).toBeNull();
  }, TEST_MS);
});
