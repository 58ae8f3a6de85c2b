// The problems collector and the one error it becomes: every problem kept with its path, the
// message capped, and paths that stay unambiguous whatever a key is called.
import { describe, expect, it } from 'vitest';
import { McpctxError } from '../../src/errors/index.js';
import { Problems, childPath, configError, type ConfigProblem } from '../../src/config/index.js';

describe('childPath', () => {
  it('joins plain keys with a dot and starts a path without one', () => {
    expect(childPath('', 'mcpServers')).toBe('mcpServers');
    expect(childPath('mcpServers', 'github-2_x$')).toBe('mcpServers.github-2_x$');
  });

  it('quotes a key that holds a dot, a space, a bracket, a quote or nothing, so the path reads one way', () => {
    expect(childPath('mcpServers', 'a.b')).toBe('mcpServers["a.b"]');
    expect(childPath('mcpServers', 'my server')).toBe('mcpServers["my server"]');
    expect(childPath('tools', 'x[0]')).toBe('tools["x[0]"]');
    expect(childPath('tools', 'say "hi"')).toBe('tools["say \\"hi\\""]');
    expect(childPath('tools', '')).toBe('tools[""]');
    expect(childPath('', 'a b')).toBe('["a b"]');
    expect(childPath('projects["/home/me"]', 'mcpServers')).toBe('projects["/home/me"].mcpServers');
  });
});

describe('Problems', () => {
  it('reports every unknown key at its own path, naming the allowed ones', () => {
    const problems = new Problems();
    problems.unknownKeys({ command: 'x', comand: 'y', 'two words': 1 }, ['command', 'args'], 'mcpServers.gh');
    expect(problems.list).toEqual([
      { path: 'mcpServers.gh.comand', reason: 'unknown key; allowed here: command, args' },
      { path: 'mcpServers.gh["two words"]', reason: 'unknown key; allowed here: command, args' },
    ]);
  });

  it('an integer without a fallback: a missing or bad value is a problem and undefined', () => {
    const problems = new Problems();
    expect(problems.integer(7, 'a', 1, 10)).toBe(7);
    expect(problems.integer(undefined, 'b', 1, 10)).toBeUndefined();
    expect(problems.integer(1.5, 'c', 1, 10_000)).toBeUndefined();
    expect(problems.list).toEqual([
      { path: 'b', reason: 'must be an integer from 1 to 10' },
      { path: 'c', reason: 'must be an integer from 1 to 10,000' },
    ]);
  });

  it('an integer with a fallback: a missing value is the fallback without a problem, a bad one is a problem', () => {
    const problems = new Problems();
    expect(problems.integer(undefined, 'a', 1, 10, 5)).toBe(5);
    expect(problems.integer(11, 'b', 1, 10, 5)).toBe(5);
    expect(problems.integer('3', 'c', 1, 10, 5)).toBe(5);
    expect(problems.list.map(({ path }) => path)).toEqual(['b', 'c']);
  });

  it('reads booleans, texts and mappings, with a problem for anything else', () => {
    const problems = new Problems();
    expect(problems.boolean(false, 'on')).toBe(false);
    expect(problems.boolean('yes', 'off')).toBeUndefined();
    expect(problems.text(undefined, 'optional', false)).toBeUndefined();
    expect(problems.text(undefined, 'required', true)).toBeUndefined();
    expect(problems.text('  ', 'blank', false)).toBeUndefined();
    expect(problems.text('ok', 'fine', true)).toBe('ok');
    expect(problems.mapping({ a: 1 }, 'map', 'servers by name')).toEqual({ a: 1 });
    expect(problems.mapping([], 'list', 'servers by name')).toBeUndefined();
    expect(problems.list).toEqual([
      { path: 'off', reason: 'must be true or false' },
      { path: 'required', reason: 'is required' },
      { path: 'blank', reason: 'must be a non-empty string' },
      { path: 'list', reason: 'must be a mapping of servers by name' },
    ]);
  });

  it('a list of strings leaves out bad elements; a list of names also refuses repeats', () => {
    const problems = new Problems();
    expect(problems.stringList(['a', '', 3, 'a'], 'allow')).toEqual(['a', 'a']);
    expect(problems.names(['a', '', 'a', 'b'], 'fields')).toEqual(['a', 'b']);
    expect(problems.stringList('a', 'deny')).toBeUndefined();
    expect(problems.names('a', 'tasks')).toBeUndefined();
    expect(problems.list).toEqual([
      { path: 'allow[1]', reason: 'must be a non-empty string' },
      { path: 'allow[2]', reason: 'must be a non-empty string' },
      { path: 'fields[1]', reason: 'must be a non-empty string' },
      { path: 'fields[2]', reason: 'repeats "a"' },
      { path: 'deny', reason: 'must be a list of strings' },
      { path: 'tasks', reason: 'must be a list of names' },
    ]);
  });
});

describe('configError', () => {
  const many: ConfigProblem[] = Array.from({ length: 60 }, (_, index) => ({ path: `tools.t${index}`, reason: `reason ${index}` }));

  it('lists the first 50 problems in the message and keeps all of them in data', () => {
    const error = configError(many, '/tmp/gateway.yaml', 'gateway config');
    expect(error).toBeInstanceOf(McpctxError);
    expect(error.code).toBe('INVALID_CONFIG');
    const lines = error.message.split('\n');
    expect(lines[0]).toBe('Invalid gateway config /tmp/gateway.yaml: 60 problems');
    expect(lines.slice(1, 51)).toEqual(many.slice(0, 50).map(({ path, reason }) => `  - ${path}: ${reason}`));
    expect(lines.slice(51)).toEqual(['  ... and 10 more']);
    expect(error.message).not.toContain('tools.t50');
    expect(error.data).toEqual({ file: '/tmp/gateway.yaml', problems: many });
  });

  it('says one problem in the singular, leaves out a file it was not given, and takes another code', () => {
    const error = configError([{ path: 'model.maxTokens', reason: 'must be an integer from 1 to 200,000' }], null, 'model settings', 'USAGE');
    expect(error.code).toBe('USAGE');
    expect(error.message).toBe('Invalid model settings: 1 problem\n  - model.maxTokens: must be an integer from 1 to 200,000');
    expect(error.data.file).toBeNull();
  });

  it('lists exactly 50 without a "more" line', () => {
    expect(configError(many.slice(0, 50), null, 'config').message).not.toContain('more');
  });
});
