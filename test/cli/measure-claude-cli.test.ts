// mcpctx measure --claude-model against a loopback count_tokens fake: the request carries exactly
// name, description and input_schema per tool (and a second one no tools), the block lands in
// measurement.json and verifies, the key appears nowhere, and without a key the flag is a usage error.
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyMeasurement, type Measurement } from '../../src/measure/index.js';
import { AnthropicFake, sentKey } from '../support/anthropic-fake.js';
import { markFlags, runCliCaptured } from '../support/cli-run.js';
import { SCRIPTED_SERVER, waitForNoMarkedProcesses } from '../support/processes.js';

const KEY = `sk-ant-canary-${randomUUID()}`;
let scratch = '';
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'mcpctx-measure-claude-'));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
  expect(await waitForNoMarkedProcesses()).toEqual([]);
});

function server(): string[] {
  return [...markFlags(), '--env', `PATH=${process.env.PATH ?? ''}`, '--runs', '1', '--', process.execPath, SCRIPTED_SERVER, 'normal'];
}

describe('measure --claude-model', () => {
  it('records what the tools add to an Anthropic request, asking with exactly the three fields', async () => {
    const fake = await new AnthropicFake().start();
    try {
      fake.script({ json: { input_tokens: 512 } }, { json: { input_tokens: 9 } });
      const out = join(scratch, 'out');
      const run = await runCliCaptured(['measure', '--claude-model', 'claude-test-1', '--claude-base-url', fake.baseUrl, '--out', out, '--name', 'scripted', ...server()], scratch, {
        ANTHROPIC_API_KEY: KEY,
      });
      expect(run.code, run.stderr).toBe(0);
      expect(fake.requests.map((request) => [request.method, request.path])).toEqual([
        ['POST', '/v1/messages/count_tokens'],
        ['POST', '/v1/messages/count_tokens'],
      ]);
      expect(fake.requests.every((request) => sentKey(request) === KEY)).toBe(true);
      const [withTools, withoutTools] = fake.requests.map((request) => request.body as Record<string, unknown>);
      expect(Object.keys(withTools ?? {}).sort()).toEqual(['messages', 'model', 'tools']);
      expect(Object.keys(withoutTools ?? {}).sort()).toEqual(['messages', 'model']);
      const tools = (withTools?.tools ?? []) as Array<Record<string, unknown>>;
      expect(tools.map((tool) => tool.name)).toEqual(['get_weather', 'search_docs', 'echo']);
      for (const tool of tools) expect(Object.keys(tool).every((key) => ['name', 'description', 'input_schema'].includes(key))).toBe(true);
      // search_docs has an outputSchema on the wire: it has nowhere to go in an Anthropic tool.
      expect(JSON.stringify(tools)).not.toContain('outputSchema');

      const written = JSON.parse(await readFile(join(out, 'scripted', 'measurement.json'), 'utf8')) as Measurement;
      expect(written.claude).toMatchObject({ method: 'tools-delta/v1', model: 'claude-test-1', claudeTokens: 503, withTools: 512, withoutTools: 9, canonicalSha256: written.canonicalSha256 });
      expect(written.claude?.fieldSelectionShare).toBeLessThan(1);
      expect(verifyMeasurement(written).ok).toBe(true);
      expect(run.stdout).toContain('the tools add 503 tokens to a request');
      expect(JSON.stringify(written) + run.stdout + run.stderr).not.toContain(KEY);
    } finally {
      await fake.close();
    }
  });

  it('is a usage error without a key, naming the variable, before anything starts', async () => {
    const run = await runCliCaptured(['measure', '--claude-model', 'claude-test-1', ...server()], scratch, {});
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('ANTHROPIC_API_KEY');
    const named = await runCliCaptured(['measure', '--claude-model', 'm', '--claude-key-env', 'MY_CLAUDE_KEY', ...server()], scratch, { ANTHROPIC_API_KEY: KEY });
    expect(named.code).toBe(2);
    expect(named.stderr).toContain('MY_CLAUDE_KEY');
    expect(named.stderr).not.toContain(KEY);
  });

  it('exits 3 when count_tokens fails, still measuring the server, and never prints the key', async () => {
    const fake = await new AnthropicFake().start();
    try {
      fake.script({ status: 400, json: { type: 'error', error: { type: 'invalid_request_error', message: 'model: not found' } } });
      const run = await runCliCaptured(['measure', '--claude-model', 'nope', '--claude-base-url', fake.baseUrl, '--json', ...server()], scratch, { ANTHROPIC_API_KEY: KEY });
      expect(run.code).toBe(3);
      expect(run.stderr).toContain('claude divergence failed');
      const measurement = JSON.parse(run.stdout) as Measurement;
      expect(measurement.status).toBe('measured');
      expect(measurement.claude).toBeUndefined();
      expect(run.stdout + run.stderr).not.toContain(KEY);
    } finally {
      await fake.close();
    }
  });
});
