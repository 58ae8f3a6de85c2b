// mcpctx sweep --claude-model: every server measured gets a claude block from count_tokens (a
// loopback fake), the leaderboard shows the column, a failed count is listed and leaves that
// record without the block, and the key reaches no file or output.
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Measurement } from '../../src/measure/index.js';
import { writeServersFile } from '../results/sweep/_fixture.js';
import { AnthropicFake } from '../support/anthropic-fake.js';
import { runCliCaptured } from '../support/cli-run.js';
import { waitForNoMarkedProcesses } from '../support/processes.js';

const KEY = `sk-ant-canary-${randomUUID()}`;
let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mcpctx-sweep-claude-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  expect(await waitForNoMarkedProcesses()).toEqual([]);
});

async function everyFile(root: string): Promise<string> {
  const texts: string[] = [];
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) texts.push(await readFile(join(entry.parentPath, entry.name), 'utf8'));
  }
  return texts.join('\n');
}

describe('sweep --claude-model', () => {
  it('adds the block to each measured record and the column to the leaderboard; a failed count is listed, not fatal', async () => {
    const file = await writeServersFile(dir, [
      { name: 'alpha', mode: 'normal' },
      { name: 'beta', mode: 'pages3' },
    ]);
    const fake = await new AnthropicFake().start();
    try {
      // One server at a time: alpha's two counts, then beta's first count fails (400, not retried).
      fake.script({ json: { input_tokens: 700 } }, { json: { input_tokens: 10 } }, { status: 400, json: { type: 'error', error: { type: 'invalid_request_error', message: 'bad tools' } } });
      const out = join(dir, 'results');
      const run = await runCliCaptured(['sweep', file, '--out', out, '--concurrency', '1', '--claude-model', 'claude-test-1', '--claude-base-url', fake.baseUrl], dir, { ANTHROPIC_API_KEY: KEY });
      expect(run.code, run.stderr).toBe(0);
      const alpha = JSON.parse(await readFile(join(out, 'alpha', 'measurement.json'), 'utf8')) as Measurement;
      const beta = JSON.parse(await readFile(join(out, 'beta', 'measurement.json'), 'utf8')) as Measurement;
      expect(alpha.claude).toMatchObject({ method: 'tools-delta/v1', model: 'claude-test-1', claudeTokens: 690, canonicalSha256: alpha.canonicalSha256 });
      expect(beta.status).toBe('measured');
      expect(beta.claude).toBeUndefined();
      expect(run.stderr).toContain('beta: claude divergence failed');
      const markdown = await readFile(join(out, 'leaderboard.md'), 'utf8');
      expect(markdown).toContain('| claude |');
      expect(markdown).toMatch(/\| alpha \|.*\| 690 \|/);
      expect((await everyFile(out)) + run.stdout + run.stderr).not.toContain(KEY);
    } finally {
      await fake.close();
    }
  });

  it('is a usage error without a key, before anything is measured', async () => {
    const file = await writeServersFile(dir, [{ name: 'gamma', mode: 'normal' }], 'gamma.yaml');
    const run = await runCliCaptured(['sweep', file, '--out', join(dir, 'never'), '--claude-model', 'm'], dir, {});
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('ANTHROPIC_API_KEY');
    await expect(readdir(join(dir, 'never'))).rejects.toThrow();
  });
});
