import { describe, expect, it } from 'vitest';
import { isMcpctxError, type McpctxError } from '../../src/errors/index.js';
import { DEFAULT_SIZES, parseRoutingConfig } from '../../src/routing/config/index.js';

function problemsOf(text: string): Array<{ path: string; reason: string }> {
  try {
    parseRoutingConfig(text, { cwd: '/tmp' });
  } catch (error) {
    expect(isMcpctxError(error, 'INVALID_CONFIG')).toBe(true);
    return (error as McpctxError).data.problems as Array<{ path: string; reason: string }>;
  }
  throw new Error('expected INVALID_CONFIG');
}

describe('parseRoutingConfig', () => {
  it('reads a minimal YAML config with its defaults', () => {
    const config = parseRoutingConfig('domain: tools.json\nrequests:\n  - { text: "hi", tool: none }\n  - { text: "count words", tool: word_count }\n', { cwd: '/work' });
    expect(config.domain).toEqual({ kind: 'catalog', file: '/work/tools.json' });
    expect(config.requests).toEqual([
      { id: 'r1', text: 'hi', tool: null },
      { id: 'r2', text: 'count words', tool: 'word_count' },
    ]);
    expect(config.sizes).toEqual(DEFAULT_SIZES);
    expect(config.seed).toBe(0);
    expect(config.protocols).toEqual(['native', 'constrained', 'retrieval']);
    expect(config.retrieval).toMatchObject({ retrievers: ['bm25'], recallAt: [1, 3, 5], topK: 5, bm25: { vocabulary: true, minScore: 0 } });
  });

  it('reads JSON, resolves paths against the config file, and a server source', () => {
    const config = parseRoutingConfig(
      JSON.stringify({
        seed: 7,
        domain: { server: { command: 'node', args: ['server.mjs'], timeoutMs: 5000 } },
        distractors: { unrelated: { catalog: 'pools/unrelated.json' }, confusable: { tools: [{ name: 'x' }] } },
        requests: [{ id: 'a', text: 'q', tool: 't' }],
        sizes: [16, 8],
      }),
      { file: '/cfg/routing.json' },
    );
    expect(config.file).toBe('/cfg/routing.json');
    expect(config.domain).toEqual({ kind: 'server', launch: { command: 'node', args: ['server.mjs'], cwd: '/cfg' }, timeoutMs: 5000 });
    expect(config.distractors.unrelated).toEqual({ kind: 'catalog', file: '/cfg/pools/unrelated.json' });
    expect(config.distractors.confusable).toEqual({ kind: 'inline', tools: [{ name: 'x' }] });
    expect(config.sizes).toEqual([8, 16]);
  });

  it('collects every problem, unknown keys included, into one INVALID_CONFIG', () => {
    const problems = problemsOf(
      [
        'seed: -1',
        'colour: blue',
        'domain: { catalog: a.json, tools: [] }',
        'distractors: { unrelated: 3, similar: b.json }',
        'sizes: [8, 8, 0]',
        'protocols: [native, telepathy]',
        'retrieval: { retrievers: [embeddings], topK: 0, bm25: { vocabulary: maybe } }',
        'model: { maxTokens: 0, temprature: 0 }',
        'requests:',
        '  - { text: "a", tool: x, id: same }',
        '  - { text: "", tool: y, id: same, extra: 1 }',
        `  - { text: "${'word '.repeat(1000)}", tool: z }`,
      ].join('\n'),
    );
    const paths = problems.map((problem) => problem.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        'seed',
        'colour',
        'domain',
        'distractors.unrelated',
        'distractors.similar',
        'sizes[1]',
        'sizes[2]',
        'protocols[1]',
        'retrieval.topK',
        'retrieval.bm25.vocabulary',
        'retrieval.embeddings',
        'model.maxTokens',
        'model.temprature',
        'requests[1].text',
        'requests[1].id',
        'requests[1].extra',
        'requests[2].text',
      ]),
    );
    expect(problems.find((problem) => problem.path === 'colour')?.reason).toMatch(/unknown key; allowed here: seed, domain/);
  });

  it('requires domain and requests, and refuses text that is not YAML or JSON', () => {
    expect(problemsOf('seed: 1\n').map((problem) => problem.path)).toEqual(['domain', 'requests']);
    expect(problemsOf('domain: [unclosed\n')[0]!.reason).toMatch(/not valid YAML at line 2/);
    expect(problemsOf('- just a list\n')[0]!.path).toBe('(file)');
  });

  it('refuses an API key where the NAME of its variable belongs', () => {
    const problems = problemsOf('domain: a.json\nrequests: [{ text: a, tool: b }]\nretrieval: { retrievers: [embeddings], embeddings: { baseUrl: "http://127.0.0.1:1/v1", model: m, apiKeyEnv: "sk-live 123" } }\n');
    expect(problems).toEqual([{ path: 'retrieval.embeddings.apiKeyEnv', reason: expect.stringMatching(/NAME of an environment variable/) as string }]);
  });
});
