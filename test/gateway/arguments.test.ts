// Issue 17, acceptance 4 and 5: tool arguments are checked against the tool's inputSchema before a
// call leaves the gateway. ajv compiles every schema of the real catalogs we hold; a schema it
// cannot compile is reported and its tool's calls pass unchecked; through a real gateway, a
// missing required field, a wrong type and an enum miss are refused, and the upstream's own call
// log proves it never saw them.
import { copyFileSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import {
  ArgumentChecker,
  MAX_PATTERN_CHARS,
  MAX_PATTERN_PROGRAM,
  MAX_SCHEMA_DEPTH,
  PATTERN_CHECK_BUDGET,
  SchemaCache,
  estimatedProgramSize,
  type ArgumentCheck,
} from '../../src/gateway/trust/index.js';
import { waitForNoMarkedProcesses } from '../support/processes.js';
import type { Message, WireClient } from '../support/wire-client.js';
import { relayEntry, tempDir, writeConfig } from './_gateway-process.js';
import { inProcessGateway } from './_in-process.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));
const TOOLSNAPS = join(FIXTURES, 'github-mcp-server-toolsnaps');
const CATALOGS = join(FIXTURES, 'mcp-tool-catalogs');

interface Tool {
  readonly name: string;
  readonly inputSchema: unknown;
}

function githubTools(): Tool[] {
  return readdirSync(TOOLSNAPS)
    .filter((file) => file.endsWith('.snap'))
    .sort()
    .map((file) => JSON.parse(readFileSync(join(TOOLSNAPS, file), 'utf8')) as Tool);
}

function capturedCatalogs(): Array<{ file: string; tools: Tool[] }> {
  return readdirSync(CATALOGS)
    .filter((file) => file.endsWith('.tools.json'))
    .sort()
    .map((file) => ({ file, tools: (JSON.parse(readFileSync(join(CATALOGS, file), 'utf8')) as { tools: Tool[] }).tools }));
}

function problemsOf(check: ArgumentCheck): Array<{ path: string; expected: string; schemaPath: string }> {
  return check.ok ? [] : [...check.problems];
}

describe('ArgumentChecker: every real schema compiles', () => {
  it('compiles all 117 tool schemas of the GitHub catalog', async () => {
    const tools = githubTools();
    expect(tools).toHaveLength(117);
    const checker = new ArgumentChecker(tools);
    expect(await checker.compileAll()).toEqual([]);
    expect(checker.unchecked).toEqual([]);
    console.log(`arguments: ajv compiled ${tools.length} of ${tools.length} GitHub tool schemas`);
  });

  it('compiles every schema of every captured catalog in test/fixtures/mcp-tool-catalogs', async () => {
    const catalogs = capturedCatalogs();
    expect(catalogs).toHaveLength(8);
    let schemas = 0;
    const failures: string[] = [];
    for (const { file, tools } of catalogs) {
      const checker = new ArgumentChecker(tools);
      await checker.compileAll();
      schemas += tools.length;
      failures.push(...checker.unchecked.map(({ tool, error }) => `${file} ${tool}: ${error}`));
    }
    expect(failures).toEqual([]);
    console.log(`arguments: ajv compiled ${schemas} of ${schemas} schemas in ${catalogs.length} captured catalogs`);
  });

  it("compiles every schema of the sweep registry's real catalogs (docs/leaderboard/results, raw captures)", async () => {
    const results = fileURLToPath(new URL('../../docs/leaderboard/results/', import.meta.url));
    let catalogs = 0;
    let schemas = 0;
    const failures: string[] = [];
    for (const server of readdirSync(results, { withFileTypes: true }).filter((entry) => entry.isDirectory())) {
      let measurement: { status?: string; rawToolsCapture?: Tool[] };
      try {
        measurement = JSON.parse(readFileSync(join(results, server.name, 'measurement.json'), 'utf8')) as typeof measurement;
      } catch {
        continue;
      }
      if (!Array.isArray(measurement.rawToolsCapture)) continue;
      catalogs += 1;
      const checker = new ArgumentChecker(measurement.rawToolsCapture);
      await checker.compileAll();
      schemas += measurement.rawToolsCapture.length;
      failures.push(...checker.unchecked.map(({ tool, error }) => `${server.name} ${tool}: ${error}`));
    }
    console.log(`arguments: ajv compiled ${schemas - failures.length} of ${schemas} schemas in ${catalogs} registry catalogs${failures.length ? `; not: ${failures.join('; ')}` : ''}`);
    // Every measured or dynamic record has a catalog; not-applicable and failed ones have none.
    const leaderboard = JSON.parse(readFileSync(join(results, 'leaderboard.json'), 'utf8')) as { rows: Array<{ status: string }> };
    expect(catalogs).toBe(leaderboard.rows.filter((row) => row.status === 'measured' || row.status === 'dynamic').length);
    expect(catalogs).toBeGreaterThanOrEqual(130);
    // Two real schemas cannot be checked, each for a reason the gateway names when it lets that
    // tool's calls through unchecked: an empty enum (invalid JSON Schema, refused by ajv) and a
    // lookahead with a backreference (no linear-time engine runs it).
    failures.sort();
    expect(failures).toHaveLength(2);
    expect(failures[0]).toBe('netlify netlify-coding-rules: enum must have non-empty array');
    expect(failures[1]).toMatch(/^postman getWorkspace: pattern .* cannot be checked in linear time \(RE2: .*`\(\?!`\)$/);
  });

  it('picks the draft by $schema: 2020-12 keywords are enforced under 2020-12, draft-07 is the default', () => {
    // prefixItems exists only in 2020-12; under draft-07 it is an unknown keyword and ignored.
    const schema = { type: 'object', properties: { pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }] } } };
    const args = { pair: ['a', 'not an integer'] };
    const modern = new ArgumentChecker([{ name: 't', inputSchema: { $schema: 'https://json-schema.org/draft/2020-12/schema', ...schema } }]);
    const legacy = new ArgumentChecker([{ name: 't', inputSchema: schema }]);
    expect(problemsOf(modern.check('t', args))).toEqual([{ path: '/pair/1', expected: 'type integer', schemaPath: '#/properties/pair/prefixItems/1/type' }]);
    expect(legacy.check('t', args)).toEqual({ ok: true });
  });

  it('checks formats', () => {
    const checker = new ArgumentChecker([{ name: 't', inputSchema: { type: 'object', properties: { since: { type: 'string', format: 'date-time' } } } }]);
    expect(checker.check('t', { since: '2026-12-02T14:00:00Z' })).toEqual({ ok: true });
    expect(problemsOf(checker.check('t', { since: 'yesterday' }))).toEqual([{ path: '/since', expected: 'format date-time', schemaPath: '#/properties/since/format' }]);
  });

  it('reports a schema it cannot compile, too large or too deep, and lets calls to that tool through unchecked', async () => {
    let deep: Record<string, unknown> = { type: 'string' };
    for (let level = 0; level < MAX_SCHEMA_DEPTH; level += 1) deep = { type: 'object', properties: { next: deep } };
    const huge = { type: 'object', properties: Object.fromEntries(Array.from({ length: 20_000 }, (_, index) => [`field_${index}`, { type: 'string', description: 'x'.repeat(10) }])) };
    const checker = new ArgumentChecker([
      { name: 'dangling_ref', inputSchema: { type: 'object', properties: { a: { $ref: '#/definitions/missing' } } } },
      { name: 'bad_pattern', inputSchema: { type: 'object', properties: { a: { type: 'string', pattern: '(' } } } },
      { name: 'bad_type', inputSchema: { type: 'object', properties: { a: { type: 'strnig' } } } },
      { name: 'too_deep', inputSchema: deep },
      { name: 'too_large', inputSchema: huge },
      { name: 'fine', inputSchema: { type: 'object', required: ['a'] } },
    ]);
    const reported = await checker.compileAll();
    expect(reported.map((entry) => entry.tool)).toEqual(['dangling_ref', 'bad_pattern', 'bad_type', 'too_deep', 'too_large']);
    expect(checker.unchecked).toEqual(reported);
    expect(reported.find((entry) => entry.tool === 'dangling_ref')?.error).toMatch(/#\/definitions\/missing/);
    expect(reported.find((entry) => entry.tool === 'too_deep')?.error).toMatch(/nests deeper than/);
    expect(reported.find((entry) => entry.tool === 'too_large')?.error).toMatch(/characters of JSON, over/);
    for (const entry of reported) expect(checker.check(entry.tool, { a: 12 })).toEqual({ ok: true });
    expect(checker.check('fine', {})).toEqual({ ok: false, problems: [{ path: '/', expected: 'required property "a"', schemaPath: '#/required' }] });
  });

  it('a failure is new once per shared cache (the gateway logs it once, not per session), but every checker lists it', async () => {
    const cache = new SchemaCache();
    const tools = [{ name: 'broken', inputSchema: { type: 'object', properties: { a: { $ref: '#/nowhere' } } } }];
    const first = new ArgumentChecker(tools, cache);
    const second = new ArgumentChecker(tools, cache);
    expect((await first.compileAll()).map((entry) => entry.tool)).toEqual(['broken']);
    expect(await second.compileAll()).toEqual([]);
    expect(second.unchecked.map((entry) => entry.tool)).toEqual(['broken']);
  });

  it('two schemas with one $id both compile and each keeps its own rules', () => {
    const checker = new ArgumentChecker([
      { name: 'a', inputSchema: { $id: 'urn:example:args', type: 'object', required: ['x'] } },
      { name: 'b', inputSchema: { $id: 'urn:example:args', type: 'object', required: ['y'] } },
    ]);
    expect(problemsOf(checker.check('a', {})).map((problem) => problem.expected)).toEqual(['required property "x"']);
    expect(problemsOf(checker.check('b', {})).map((problem) => problem.expected)).toEqual(['required property "y"']);
  });
});

// Issue 30, item 3: an upstream's patterns run on RE2, in time linear in the text.
describe('ArgumentChecker: schema patterns in linear time', () => {
  const timed = <T,>(run: () => T): { value: T; ms: number } => {
    const started = performance.now();
    const value = run();
    return { value, ms: performance.now() - started };
  };
  const evil = `${'a'.repeat(30)}!`;

  it('refuses ^(a+)+$ against 30 a and a ! at once, in pattern, patternProperties and propertyNames', () => {
    const checker = new ArgumentChecker([
      { name: 'pattern', inputSchema: { type: 'object', properties: { name: { type: 'string', pattern: '^(a+)+$' } } } },
      { name: 'keys', inputSchema: { type: 'object', patternProperties: { '^(a+)+$': { type: 'number' } } } },
      { name: 'names', inputSchema: { type: 'object', propertyNames: { pattern: '^(a+)+$' } } },
    ]);
    const { value, ms } = timed(() => [checker.check('pattern', { name: evil }), checker.check('keys', { [evil]: 'x', aaa: 'y' }), checker.check('names', { [evil]: 1 })]);
    expect(ms).toBeLessThan(500);
    expect(problemsOf(value[0] as ArgumentCheck)).toEqual([{ path: '/name', expected: 'a string matching ^(a+)+$', schemaPath: '#/properties/name/pattern' }]);
    // Only the key that matches the pattern is held to its schema.
    expect(problemsOf(value[1] as ArgumentCheck).map((problem) => problem.path)).toEqual(['/aaa']);
    expect(problemsOf(value[2] as ArgumentCheck).map((problem) => problem.schemaPath)).toEqual(['#/propertyNames/pattern', '#/propertyNames']);
    expect(checker.check('pattern', { name: 'aaaa' })).toEqual({ ok: true });
  });

  it('keeps each pattern of a schema to its own place (ajv shares compiled patterns by their text)', () => {
    const checker = new ArgumentChecker([
      { name: 't', inputSchema: { type: 'object', properties: { day: { type: 'string', pattern: '^\\d+d$' }, code: { type: 'string', pattern: '^[A-Z]{2}$' }, again: { type: 'string', pattern: '^\\d+d$' } } } },
    ]);
    expect(checker.check('t', { day: '7d', code: 'PT', again: '3d' })).toEqual({ ok: true });
    expect(problemsOf(checker.check('t', { day: 'PT', code: '7d', again: 'x' })).map((problem) => problem.path)).toEqual(['/day', '/code', '/again']);
  });

  it('reports a pattern RE2 does not run (backreference, lookahead) or that repeats too much, and passes that tool unchecked', async () => {
    const checker = new ArgumentChecker([
      { name: 'backreference', inputSchema: { type: 'object', properties: { a: { type: 'string', pattern: '^(a)\\1$' } } } },
      { name: 'lookahead', inputSchema: { type: 'object', properties: { a: { type: 'string', pattern: '^(?=.*[A-Z]).+$' } } } },
      { name: 'repeats', inputSchema: { type: 'object', properties: { a: { type: 'string', pattern: '^(?:[a-z]{0,100}){30}$' } } } },
      { name: 'long', inputSchema: { type: 'object', properties: { a: { type: 'string', pattern: `^(?:${'x|'.repeat(MAX_PATTERN_CHARS)}y)$` } } } },
    ]);
    const reported = await checker.compileAll();
    expect(reported.map((entry) => entry.tool)).toEqual(['backreference', 'lookahead', 'repeats', 'long']);
    expect(reported[0]?.error).toMatch(/pattern "\^\(a\)\\\\1\$" cannot be checked in linear time \(RE2: .*\\1/);
    expect(reported[1]?.error).toMatch(/cannot be checked in linear time \(RE2: .*\(\?=/);
    expect(reported[2]?.error).toMatch(/repeats too much to be checked quickly \(about [\d,]+ RE2 instructions, over 2,000\)/);
    expect(reported[3]?.error).toMatch(/characters, over 1000/);
    for (const entry of reported) expect(checker.check(entry.tool, { a: 12 })).toEqual({ ok: true });
  });

  it('estimates the RE2 program of a pattern from its text', () => {
    expect(estimatedProgramSize('^[a-zA-Z]{2}$')).toBeLessThan(10);
    expect(estimatedProgramSize('^[A-Za-z0-9._:-]{1,128}$')).toBeGreaterThan(128);
    expect(estimatedProgramSize('(?:a{1000}){1000}')).toBeGreaterThan(1_000_000);
    expect(estimatedProgramSize('^(?<year>\\d{4})-\\p{L}+(?i:x)$')).toBeLessThan(20);
    expect(MAX_PATTERN_PROGRAM).toBe(2000);
  });

  it('passes a call unchecked when its strings would take the patterns longer than the budget', () => {
    // 1,000 NFA states per character: RE2 is linear in the text, but this one needs seconds for 100,000 characters.
    const checker = new ArgumentChecker([{ name: 't', inputSchema: { type: 'object', properties: { a: { type: 'string', pattern: 'a[ab]{900}c' } }, required: ['b'] } }]);
    const text = Array.from({ length: 100_000 }, (_, index) => ((index * 7919) % 3 === 0 ? 'a' : 'b')).join('');
    const { value, ms } = timed(() => checker.check('t', { a: text }));
    expect(value).toEqual({ ok: true, unchecked: expect.stringMatching(/would take over 4,000,000 steps/) as unknown });
    expect(ms).toBeLessThan(500);
    expect(PATTERN_CHECK_BUDGET).toBe(4_000_000);
    // A short string is checked as usual.
    expect(problemsOf(checker.check('t', { a: 'abc' })).map((problem) => problem.expected)).toEqual(['required property "b"', 'a string matching a[ab]{900}c']);
  });
});

describe('ArgumentChecker on the GitHub schemas', () => {
  const checker = new ArgumentChecker(githubTools());

  it('names the path, what was expected and the schema path for each kind of miss', () => {
    expect(checker.check('list_issues', { owner: 'octo', repo: 'hello', state: 'OPEN' })).toEqual({ ok: true });
    expect(problemsOf(checker.check('list_issues', { owner: 'octo' }))).toEqual([{ path: '/', expected: 'required property "repo"', schemaPath: '#/required' }]);
    expect(problemsOf(checker.check('list_issues', { owner: 'octo', repo: 'hello', perPage: 'ten' }))).toEqual([
      { path: '/perPage', expected: 'type number', schemaPath: '#/properties/perPage/type' },
    ]);
    expect(problemsOf(checker.check('list_issues', { owner: 'octo', repo: 'hello', state: 'open' }))).toEqual([
      { path: '/state', expected: 'one of: OPEN, CLOSED', schemaPath: '#/properties/state/enum' },
    ]);
  });

  it('collects every problem, and treats missing arguments as {}', () => {
    expect(problemsOf(checker.check('create_issue', undefined)).map((problem) => problem.expected)).toEqual([
      'required property "owner"',
      'required property "repo"',
      'required property "title"',
    ]);
    expect(problemsOf(checker.check('create_issue', 'owner=octo'))).toEqual([{ path: '/', expected: 'type object', schemaPath: '#/type' }]);
  });

  it('passes a tool it has no schema for', () => {
    expect(checker.check('not_a_github_tool', { anything: 1 })).toEqual({ ok: true });
  });
});

describe('argument checks in a running gateway', () => {
  afterAll(async () => {
    expect(await waitForNoMarkedProcesses(10_000)).toEqual([]);
  });

  const textOf = (response: Message): string => ((response.result as { content?: Array<{ text?: string }> } | undefined)?.content?.[0]?.text ?? '');
  const call = (client: WireClient, name: string, args?: Record<string, unknown>) =>
    client.request('tools/call', args === undefined ? { name } : { name, arguments: args });
  const upstreamCalls = async (client: WireClient): Promise<unknown[]> => (JSON.parse(textOf(await call(client, 'calls'))) as { calls: unknown[] }).calls;

  async function open(client: WireClient): Promise<void> {
    await client.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'arguments', version: '1' } });
    await client.notify('notifications/initialized');
    await client.request('tools/list');
  }

  it('refuses a missing required field, a wrong type and an enum miss before the upstream sees them; a valid call passes', async () => {
    const client = await inProcessGateway({ config: writeConfig({ mcpServers: { github: relayEntry('github', ['--catalog', TOOLSNAPS]) } }) });
    try {
      await open(client);
      const refusals = [
        { args: { owner: 'octo', title: 'Crash on start' }, says: '- /: expected required property "repo" (schema #/required)' },
        { args: { owner: 'octo', repo: 'hello', title: 42 }, says: '- /title: expected type string (schema #/properties/title/type)' },
      ];
      for (const { args, says } of refusals) {
        const refused = await call(client, 'create_issue', args);
        expect(refused.error).toBeUndefined();
        expect((refused.result as { isError?: boolean }).isError).toBe(true);
        expect(textOf(refused)).toContain("create_issue was not sent to the server: its arguments do not match the tool's inputSchema.");
        expect(textOf(refused)).toContain(says);
      }
      const enumMiss = await call(client, 'list_issues', { owner: 'octo', repo: 'hello', state: 'open' });
      expect((enumMiss.result as { isError?: boolean }).isError).toBe(true);
      expect(textOf(enumMiss)).toContain('- /state: expected one of: OPEN, CLOSED (schema #/properties/state/enum)');
      expect((enumMiss.result as { _meta?: Record<string, unknown> })._meta?.['mcpctx/argumentProblems']).toEqual([
        { path: '/state', expected: 'one of: OPEN, CLOSED', schemaPath: '#/properties/state/enum' },
      ]);
      const noArguments = await call(client, 'create_issue');
      expect(textOf(noArguments)).toContain('expected required property "owner"');
      // The upstream's own log: none of the four refused calls arrived.
      expect(await upstreamCalls(client)).toEqual(['calls']);

      const valid = { owner: 'octo', repo: 'hello', state: 'CLOSED' };
      const passed = await call(client, 'list_issues', valid);
      expect((passed.result as { isError?: boolean }).isError).toBeUndefined();
      expect(JSON.parse(textOf(passed))).toEqual({ tool: 'list_issues', arguments: valid });
      expect(await upstreamCalls(client)).toEqual(['calls', 'list_issues', 'calls']);
    } finally {
      await client.close();
    }
  });

  it('a tool whose schema does not compile is logged and its calls pass unchecked; the gateway keeps serving', async () => {
    const dir = tempDir();
    const catalog = join(dir, 'catalog');
    mkdirSync(catalog);
    copyFileSync(join(TOOLSNAPS, 'create_issue.snap'), join(catalog, 'create_issue.snap'));
    const broken = { name: 'broken_tool', description: 'Its schema points nowhere.', inputSchema: { type: 'object', properties: { a: { $ref: '#/definitions/missing' } }, required: ['a'] } };
    writeFileSync(join(catalog, 'broken_tool.json'), JSON.stringify(broken));
    const client = await inProcessGateway({ config: writeConfig({ mcpServers: { github: relayEntry('github', ['--catalog', catalog]) } }, dir) });
    try {
      await open(client);
      const passed = await call(client, 'broken_tool', { b: 1 });
      expect(JSON.parse(textOf(passed))).toEqual({ tool: 'broken_tool', arguments: { b: 1 } });
      expect(textOf(await call(client, 'create_issue', { owner: 'octo' }))).toContain('expected required property "repo"');
      await client.waitFor(() => /broken_tool: its inputSchema does not compile/.test(client.stderr()), 10_000);
      expect(client.stderr()).toMatch(/broken_tool: its inputSchema does not compile, so its calls pass unchecked: .*#\/definitions\/missing/);
      expect(await upstreamCalls(client)).toEqual(['broken_tool', 'calls']);
    } finally {
      await client.close();
    }
  });
});
