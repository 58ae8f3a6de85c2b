import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { McpctxError } from '../../src/errors/index.js';
import {
  DEFAULT_SYSTEM_PROMPT,
  DEFAULT_TOOL_PATHS,
  applyModelOverrides,
  launchFor,
  loadExperimentConfig,
  parseExperimentConfig,
} from '../../src/experiment/config/_config.js';
import type { ExperimentConfig } from '../../src/experiment/_types.js';

let dir = '';
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mcpctx-exp-config-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const MINIMAL = `
snapshot: data/snapshot.json
fields: data/fields.json
tasks: tasks.json
conditions:
  baseline: { command: node, args: [server.js], env: { MODE: baseline } }
  optimized: { command: node, args: [server.js], env: { MODE: optimized } }
model: { script: turns.json }
`;

/** The error a parse throws (failing the test when it does not throw). */
function errorOf(run: () => unknown): McpctxError {
  try {
    run();
  } catch (error) {
    if (error instanceof McpctxError) return error;
    throw error;
  }
  throw new Error('expected an McpctxError');
}

function problemsOf(error: McpctxError): { path: string; reason: string }[] {
  return error.data.problems as { path: string; reason: string }[];
}

function parse(text: string, name = 'experiment.yaml'): ExperimentConfig {
  return parseExperimentConfig(text, join(dir, name));
}

describe('parseExperimentConfig', () => {
  it('fills every default and resolves the data paths against the config folder', () => {
    const config = parse(MINIMAL);
    expect(config.file).toBe(join(dir, 'experiment.yaml'));
    expect(config.snapshot).toBe(join(dir, 'data/snapshot.json'));
    expect(config.fields).toBe(join(dir, 'data/fields.json'));
    expect(config.tasks).toBe(join(dir, 'tasks.json'));
    expect(config.pageSize).toBe(5);
    expect(config.maxTurns).toBe(12);
    expect(config.toolTimeoutMs).toBe(30_000);
    expect(config.system).toBe(DEFAULT_SYSTEM_PROMPT);
    expect(config.paths).toEqual(DEFAULT_TOOL_PATHS);
    expect(config.probe).toEqual({ condition: 'optimized', tool: 'count_by_field', arguments: null, cacheKey: 'cache' });
    expect(config.model).toEqual({ provider: 'scripted', model: 'scripted', maxTokens: 1024, timeoutMs: 120_000, script: join(dir, 'turns.json') });
    expect(config.conditions.baseline).toEqual({
      launch: { command: 'node', args: ['server.js'], cwd: dir, env: { MODE: 'baseline' }, inheritEnv: false },
      dropResultKeys: [],
    });
    expect(config.conditions.optimized.tools).toBeUndefined();
  });

  it('asks each question once unless repeat says how many times, from 1 to 1000', () => {
    expect(parse(MINIMAL).repeat).toBe(1);
    expect(parse(`${MINIMAL}repeat: 3\n`).repeat).toBe(3);
    for (const bad of ['0', '1001', '2.5', '"3"']) {
      expect(problemsOf(errorOf(() => parse(`${MINIMAL}repeat: ${bad}\n`))).map((problem) => problem.path)).toEqual(['repeat']);
    }
  });

  it('the default system prompt asks for the answer JSON and names the records-server tools', () => {
    expect(DEFAULT_SYSTEM_PROMPT).toContain('Return JSON only: {"answer":...,"evidenceIds":[...],"caveats":[...]}');
    for (const tool of ['find_records', 'count_by_field', 'exact_record']) expect(DEFAULT_SYSTEM_PROMPT).toContain(tool);
  });

  it('reports every unknown key, at every level, in one INVALID_CONFIG', () => {
    const error = errorOf(() =>
      parse(`
snapshot: s.json
fields: f.json
tasks: t.json
pagesize: 5
conditions:
  baseline: { command: node, argz: [] }
  optimized: { command: node }
  extra: { command: node }
paths:
  lookup: { serch: find }
  agregate: { count: c }
probe: { tol: x }
model: { script: turns.json, modle: x }
`),
    );
    expect(error.code).toBe('INVALID_CONFIG');
    expect(error.data.file).toBe(join(dir, 'experiment.yaml'));
    expect(problemsOf(error).map((problem) => problem.path).sort()).toEqual(
      ['pagesize', 'conditions.baseline.argz', 'conditions.extra', 'paths.lookup.serch', 'paths.agregate', 'probe.tol', 'model.modle'].sort(),
    );
    for (const problem of problemsOf(error)) expect(problem.reason).toMatch(/^unknown key; allowed here: /);
    expect(error.message).toContain('7 problems');
  });

  it('collects problems of values too, not only the first', () => {
    const error = errorOf(() =>
      parse(`
tasks: t.json
pageSize: 0
maxTurns: 101
toolTimeoutMs: 99
conditions:
  baseline: { args: [1, {}] , env: { "1BAD": x, SNAPSHOT_PATH: y } }
model: { provider: magic }
`),
    );
    const paths = problemsOf(error).map((problem) => problem.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        'snapshot',
        'fields',
        'pageSize',
        'maxTurns',
        'toolTimeoutMs',
        'conditions.optimized',
        'conditions.baseline.command',
        'conditions.baseline.args[1]',
        'conditions.baseline.env.1BAD',
        'conditions.baseline.env.SNAPSHOT_PATH',
        'model.provider',
      ]),
    );
  });

  it('reads JSON with comments and trailing commas', () => {
    const config = parse(
      `{
  // the bundled data
  "snapshot": "s.json", /* the records */
  "fields": "f.json",
  "tasks": "t.json",
  "pageSize": 7,
  "conditions": {
    "baseline": { "command": "node", },
    "optimized": { "command": "node", "dropResultKeys": ["cache"] },
  },
  "model": { "script": "turns.json" },
}`,
      'experiment.json',
    );
    expect(config.pageSize).toBe(7);
    expect(config.conditions.optimized.dropResultKeys).toEqual(['cache']);
  });

  it('names the line of a syntax error', () => {
    const json = errorOf(() => parse('{\n  "snapshot": "s.json",\n  "fields" "f.json"\n}', 'experiment.json'));
    expect(json.code).toBe('INVALID_CONFIG');
    expect(problemsOf(json)[0]?.reason).toMatch(/not valid JSON: .* line 3/);
    const yaml = errorOf(() => parse('snapshot: s.json\nfields: [unclosed\ntasks: t.json\n'));
    expect(yaml.code).toBe('INVALID_CONFIG');
    expect(problemsOf(yaml)[0]?.reason).toMatch(/not valid YAML at line \d+/);
  });

  it('resolves only the arguments that start with ./ or ../, and cwd, against the config folder', () => {
    const config = parse(`
snapshot: /abs/snapshot.json
fields: ../up/fields.json
tasks: t.json
conditions:
  baseline: { command: node, args: [./server.js, ../other/server.js, --flag, plain.js, /abs/x.js, 8080], cwd: sub }
  optimized: { command: node, cwd: /elsewhere }
model: { script: ./turns/demo.json }
`);
    expect(config.snapshot).toBe('/abs/snapshot.json');
    expect(config.fields).toBe(join(dir, '../up/fields.json'));
    expect(config.conditions.baseline.launch.args).toEqual([join(dir, 'server.js'), join(dir, '../other/server.js'), '--flag', 'plain.js', '/abs/x.js', '8080']);
    expect(config.conditions.baseline.launch.cwd).toBe(join(dir, 'sub'));
    expect(config.conditions.optimized.launch.cwd).toBe('/elsewhere');
    expect(config.model.script).toBe(join(dir, 'turns/demo.json'));
  });

  it('takes tools, dropResultKeys, paths and the probe as written', () => {
    const config = parse(`${MINIMAL}
paths:
  lookup: { search: search_items }
  later_page: { cursorArgument: page_token }
probe: { condition: baseline, tool: exact_record, arguments: { id: "3045" }, cacheKey: null }
`.replace('env: { MODE: optimized } }', 'env: { MODE: optimized }, tools: [find_records, exact_record], dropResultKeys: [cache] }'));
    expect(config.conditions.optimized.tools).toEqual(['find_records', 'exact_record']);
    expect(config.paths.lookup).toEqual({ ...DEFAULT_TOOL_PATHS.lookup, search: 'search_items' });
    expect(config.paths.later_page).toEqual({ page: 'find_records', cursorArgument: 'page_token' });
    expect(config.paths.aggregate).toEqual(DEFAULT_TOOL_PATHS.aggregate);
    expect(config.probe).toEqual({ condition: 'baseline', tool: 'exact_record', arguments: { id: '3045' }, cacheKey: null });
    expect(parse(`${MINIMAL}probe: false\n`).probe).toBeNull();
  });

  it('refuses an empty or repeating tools list', () => {
    const error = errorOf(() => parse(MINIMAL.replace('env: { MODE: optimized } }', 'tools: [] }').replace('env: { MODE: baseline } }', 'tools: [a, a] }')));
    expect(problemsOf(error)).toEqual([
      { path: 'conditions.baseline.tools[1]', reason: 'repeats "a"' },
      { path: 'conditions.optimized.tools', reason: expect.stringContaining('names no tool') },
    ]);
  });
});

describe('the model block', () => {
  const withModel = (model: string): string => MINIMAL.replace('model: { script: turns.json }', `model: ${model}`);

  it('refuses a keyEnv that looks like a key, without echoing it', () => {
    const key = 'sk-ant-api03-AbCdEf0123456789AbCdEf0123456789';
    for (const value of [key, 'AbCdEf0123456789AbCdEf0123456789']) {
      const error = errorOf(() => parse(withModel(`{ provider: anthropic, model: claude-sonnet-4-5, keyEnv: "${value}" }`)));
      expect(problemsOf(error)).toEqual([{ path: 'model.keyEnv', reason: expect.stringContaining('give the NAME of the variable') }]);
      expect(error.message).not.toContain(value);
      expect(JSON.stringify(error.data)).not.toContain(value);
    }
    const good = parse(withModel('{ provider: anthropic, model: claude-sonnet-4-5, keyEnv: MY_ANTHROPIC_KEY }'));
    expect(good.model).toEqual({ provider: 'anthropic', model: 'claude-sonnet-4-5', maxTokens: 1024, timeoutMs: 120_000, keyEnv: 'MY_ANTHROPIC_KEY' });
  });

  it('needs baseUrl (http or https) for openai-compatible, and a model for any HTTP provider', () => {
    const missing = errorOf(() => parse(withModel('{ provider: openai-compatible, model: llama3.1 }')));
    expect(problemsOf(missing)).toEqual([{ path: 'model.baseUrl', reason: expect.stringContaining('is required for provider openai-compatible') }]);
    const ftp = errorOf(() => parse(withModel('{ provider: openai-compatible, model: llama3.1, baseUrl: "ftp://host/v1" }')));
    expect(problemsOf(ftp)).toEqual([{ path: 'model.baseUrl', reason: 'must be an http:// or https:// URL' }]);
    const noModel = errorOf(() => parse(withModel('{ provider: anthropic }')));
    expect(problemsOf(noModel)).toEqual([{ path: 'model.model', reason: 'is required' }]);
    const config = parse(withModel('{ provider: openai-compatible, model: llama3.1, baseUrl: "http://localhost:11434/v1", temperature: 0, maxTokens: 512 }'));
    expect(config.model).toEqual({ provider: 'openai-compatible', model: 'llama3.1', baseUrl: 'http://localhost:11434/v1', temperature: 0, maxTokens: 512, timeoutMs: 120_000 });
  });

  it('refuses settings of another provider instead of ignoring them', () => {
    const scripted = errorOf(() => parse(withModel('{ script: t.json, baseUrl: "http://x", keyEnv: K }')));
    expect(problemsOf(scripted).map((problem) => problem.path)).toEqual(['model.baseUrl', 'model.keyEnv']);
    const anthropic = errorOf(() => parse(withModel('{ provider: anthropic, model: m, script: t.json }')));
    expect(problemsOf(anthropic).map((problem) => problem.path)).toEqual(['model.script']);
    const noScript = errorOf(() => parse(withModel('{ provider: scripted }')));
    expect(problemsOf(noScript)).toEqual([{ path: 'model.script', reason: 'is required' }]);
    const temperature = errorOf(() => parse(withModel('{ script: t.json, temperature: 3 }')));
    expect(problemsOf(temperature)).toEqual([{ path: 'model.temperature', reason: 'must be a number from 0 to 2' }]);
  });
});

describe('applyModelOverrides', () => {
  it('switches provider, dropping what belonged to the old one', () => {
    const config = parse(MINIMAL);
    const next = applyModelOverrides(config, { provider: 'anthropic', model: 'claude-sonnet-4-5', maxTokens: 2048 });
    expect(next.model).toEqual({ provider: 'anthropic', model: 'claude-sonnet-4-5', maxTokens: 2048, timeoutMs: 120_000 });
    expect(config.model.provider).toBe('scripted');
    expect(next.conditions).toBe(config.conditions);
  });

  it('is USAGE naming the flag when the result would be invalid', () => {
    const config = parse(MINIMAL);
    const noUrl = errorOf(() => applyModelOverrides(config, { provider: 'openai-compatible', model: 'llama3.1' }));
    expect(noUrl.code).toBe('USAGE');
    expect(problemsOf(noUrl)).toEqual([{ path: '--base-url', reason: expect.stringContaining('is required for provider openai-compatible') }]);
    expect(noUrl.message).toContain('--base-url');
    const noModel = errorOf(() => applyModelOverrides(config, { provider: 'anthropic' }));
    expect(problemsOf(noModel).map((problem) => problem.path)).toEqual(['--model']);
    const key = errorOf(() => applyModelOverrides(config, { provider: 'anthropic', model: 'm', keyEnv: 'sk-proj-AbCdEf0123456789AbCdEf' }));
    expect(problemsOf(key)).toEqual([{ path: '--api-key-env', reason: expect.stringContaining('NAME') }]);
    expect(key.message).not.toContain('sk-proj-AbCdEf0123456789AbCdEf');
    const tokens = errorOf(() => applyModelOverrides(config, { maxTokens: 0 }));
    expect(problemsOf(tokens).map((problem) => problem.path)).toEqual(['--max-tokens']);
    const provider = errorOf(() => applyModelOverrides(config, { provider: 'gemini' }));
    expect(problemsOf(provider).map((problem) => problem.path)).toEqual(['--provider']);
  });

  it('keeps the config model when the provider stays, and resolves --script against cwd', () => {
    const config = parse(MINIMAL.replace('model: { script: turns.json }', 'model: { provider: anthropic, model: claude-a, keyEnv: MY_KEY, temperature: 0.5 }'));
    expect(applyModelOverrides(config, { model: 'claude-b' }).model).toEqual({
      provider: 'anthropic',
      model: 'claude-b',
      keyEnv: 'MY_KEY',
      temperature: 0.5,
      maxTokens: 1024,
      timeoutMs: 120_000,
    });
    const scripted = applyModelOverrides(config, { provider: 'scripted', script: 'demo/turns.json' }, '/work/here');
    expect(scripted.model).toEqual({ provider: 'scripted', model: 'scripted', script: '/work/here/demo/turns.json', temperature: 0.5, maxTokens: 1024, timeoutMs: 120_000 });
  });
});

describe('launchFor', () => {
  it('puts SNAPSHOT_PATH and FIELDS_PATH after the config env', () => {
    const config = parse(MINIMAL);
    expect(launchFor(config, 'optimized')).toEqual({
      command: 'node',
      args: ['server.js'],
      cwd: dir,
      inheritEnv: false,
      env: { MODE: 'optimized', SNAPSHOT_PATH: join(dir, 'data/snapshot.json'), FIELDS_PATH: join(dir, 'data/fields.json') },
    });
    expect(config.conditions.optimized.launch.env).toEqual({ MODE: 'optimized' });
  });
});

describe('loadExperimentConfig', () => {
  it('reads a file and resolves paths against its folder', async () => {
    mkdirSync(join(dir, 'sub'));
    writeFileSync(join(dir, 'sub', 'exp.yaml'), MINIMAL);
    const config = await loadExperimentConfig(join(dir, 'sub', 'exp.yaml'));
    expect(config.tasks).toBe(join(dir, 'sub', 'tasks.json'));
  });

  it('is IO for a missing or unreadable file, INVALID_CONFIG for a broken one', async () => {
    await expect(loadExperimentConfig(join(dir, 'absent.yaml'))).rejects.toMatchObject({ code: 'IO', data: { file: join(dir, 'absent.yaml') } });
    await expect(loadExperimentConfig(dir)).rejects.toMatchObject({ code: 'IO' });
    writeFileSync(join(dir, 'list.yaml'), '- a\n- b\n');
    await expect(loadExperimentConfig(join(dir, 'list.yaml'))).rejects.toMatchObject({ code: 'INVALID_CONFIG' });
    if (process.getuid?.() !== 0) {
      writeFileSync(join(dir, 'locked.yaml'), MINIMAL);
      chmodSync(join(dir, 'locked.yaml'), 0o000);
      await expect(loadExperimentConfig(join(dir, 'locked.yaml'))).rejects.toMatchObject({ code: 'IO' });
    }
  });
});

describe('the config text', () => {
  it('reads a .yaml file that opens with a flow mapping as YAML', () => {
    const text = '{ snapshot: s.json, fields: f.json, tasks: t.json, conditions: { baseline: { command: node }, optimized: { command: node } }, model: { script: t.json } }';
    expect(parse(text).snapshot).toBe(join(dir, 's.json'));
  });
});
