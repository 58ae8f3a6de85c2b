// mcpctx calibrate against a loopback count_tokens fake: one baseline count, then one per sample;
// the factor is the largest claude/o200k ratio rounded up to 2 decimals; --out merges the entry
// into a table; the key appears nowhere; a failing count_tokens exits 3 and writes nothing.
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countTokens, parseClaudeFactorTable } from '../../src/tokens/index.js';
import { AnthropicFake, sentKey } from '../support/anthropic-fake.js';
import { runCliCaptured } from '../support/cli-run.js';

const KEY = `sk-ant-canary-${randomUUID()}`;
const SAMPLES = { 'a.json': '{"items":[{"id":1,"title":"first"},{"id":2,"title":"second"}],"next_cursor":null}', 'b.log': '2026-12-05T10:00:00Z INFO started worker=3 queue=12\n' };
let scratch = '';
let samplesDir = '';
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'mcpctx-calibrate-'));
  samplesDir = join(scratch, 'samples');
  await mkdir(samplesDir);
  for (const [name, text] of Object.entries(SAMPLES)) await writeFile(join(samplesDir, name), text);
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe('mcpctx calibrate', () => {
  it('counts a baseline and each sample, takes the largest ratio rounded up, and writes the table entry', async () => {
    const fake = await new AnthropicFake().start();
    try {
      const o200k = Object.values(SAMPLES).map((text) => countTokens(text));
      // count_tokens answers: the baseline message, then each sample's message (sorted by name).
      const baseline = 8;
      const claude = [Math.round(o200k[0]! * 1.23), Math.round(o200k[1]! * 1.31)];
      fake.script({ json: { input_tokens: baseline } }, { json: { input_tokens: baseline + claude[0]! } }, { json: { input_tokens: baseline + claude[1]! } });
      const out = join(scratch, 'factors.json');
      await writeFile(out, JSON.stringify({ version: 1, entries: [{ model: 'other-model', factor: 1.1, measuredOn: '2026-01-01', method: 'count-tokens-message-delta/v1', samples: 3 }] }));
      const run = await runCliCaptured(['calibrate', '--claude-model', 'claude-test-1', '--claude-base-url', fake.baseUrl, '--samples', samplesDir, '--out', out], scratch, { ANTHROPIC_API_KEY: KEY });
      expect(run.code, run.stderr).toBe(0);

      expect(fake.requests.map((request) => [request.method, request.path])).toEqual(Array(3).fill(['POST', '/v1/messages/count_tokens']));
      expect(fake.requests.every((request) => sentKey(request) === KEY)).toBe(true);
      const texts = fake.requests.map((request) => JSON.stringify((request.body as { messages: unknown }).messages));
      expect(texts[0]).toContain('"text":"."');
      expect(texts[1]).toContain(JSON.stringify(SAMPLES['a.json']).slice(1, -1));
      expect((fake.requests[1]?.body as { model?: string }).model).toBe('claude-test-1');

      const ratios = claude.map((tokens, index) => tokens / o200k[index]!);
      const factor = Math.ceil(Math.max(...ratios) * 100 - 1e-9) / 100;
      const table = parseClaudeFactorTable(JSON.parse(await readFile(out, 'utf8')) as unknown);
      expect(table.entries.map((entry) => entry.model)).toEqual(['claude-test-1', 'other-model']);
      expect(table.entries[0]).toEqual({ model: 'claude-test-1', factor, measuredOn: new Date().toISOString().slice(0, 10), method: 'count-tokens-message-delta/v1', samples: 2 });
      expect(run.stdout).toContain(`factor ${factor} for claude-test-1: the largest ratio of 2 samples, rounded up to 2 decimals`);
      expect(run.stdout + run.stderr + (await readFile(out, 'utf8'))).not.toContain(KEY);
    } finally {
      await fake.close();
    }
  });

  it('calibrates on the bundled samples by default', async () => {
    const fake = await new AnthropicFake().start();
    try {
      fake.script({ json: { input_tokens: 8 } }, ...Array.from({ length: 5 }, () => ({ json: { input_tokens: 600 } })));
      const run = await runCliCaptured(['calibrate', '--claude-model', 'm', '--claude-base-url', fake.baseUrl, '--json'], scratch, { ANTHROPIC_API_KEY: KEY });
      expect(run.code, run.stderr).toBe(0);
      const result = JSON.parse(run.stdout) as { samples: Array<{ name: string }> };
      expect(result.samples.map((sample) => sample.name)).toEqual(['handler.ts', 'issues.json', 'release-notes.md', 'table.csv', 'worker.log']);
    } finally {
      await fake.close();
    }
  });

  it('exits 3 and writes nothing when count_tokens fails, and 2 without a key', async () => {
    const fake = await new AnthropicFake().start();
    try {
      fake.script({ status: 400, json: { type: 'error', error: { type: 'invalid_request_error', message: 'model: not found' } } });
      const out = join(scratch, 'never.json');
      const run = await runCliCaptured(['calibrate', '--claude-model', 'nope', '--claude-base-url', fake.baseUrl, '--samples', samplesDir, '--out', out], scratch, { ANTHROPIC_API_KEY: KEY });
      expect(run.code).toBe(3);
      expect(run.stderr).toContain('calibration failed');
      await expect(readFile(out, 'utf8')).rejects.toThrow(/ENOENT/);
    } finally {
      await fake.close();
    }
    const noKey = await runCliCaptured(['calibrate', '--claude-model', 'm'], scratch, {});
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain('ANTHROPIC_API_KEY');
  });
});
