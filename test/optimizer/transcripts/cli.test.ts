// `mcpctx optimize --transcript`: each fixture end to end (the same build as the JSON input of the
// same records), the task from the last user request or --task, what was imported on stderr, and
// the refusals (no task, no format, both inputs, a file over the size cap).
import { mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ContextOptimizer, type ContextResult } from '../../../src/optimizer/index.js';
import { importTranscript } from '../../../src/optimizer/transcripts/index.js';
import { runCliCaptured, type CliRun } from '../../support/cli-run.js';

const scratch = mkdtempSync(join(tmpdir(), 'mcpctx-transcript-'));
const cli = (args: string[]): Promise<CliRun> => runCliCaptured(args, scratch);
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

const fixture = (relative: string): string => fileURLToPath(new URL(relative, import.meta.url));
const CLAUDE = fixture('../../fixtures/transcripts/claude-code-session.jsonl');
const CODEX = fixture('../../fixtures/transcripts/codex-rollout.jsonl');
const PYDICOM = fixture('../../../bench/optimizer/fixtures/swe-agent-trajectories/gpt4__pydicom__pydicom-1458.traj');
const MARSHMALLOW = fixture('../../../bench/optimizer/fixtures/swe-agent-trajectories/replay_function_calling_replace_from_source__marshmallow-code__marshmallow-1867.traj');

function library(file: string, task: string | undefined, budget: number): ContextResult {
  const imported = importTranscript(readFileSync(file, 'utf8'));
  const input = { ...imported.records, task: task ?? (imported.lastUserRequest as string), tokenBudget: budget };
  return JSON.parse(JSON.stringify(new ContextOptimizer().buildContext(input))) as ContextResult;
}

describe('mcpctx optimize --transcript', () => {
  for (const [name, file, format] of [
    ['a Claude Code session', CLAUDE, 'claude-code'],
    ['a Codex rollout', CODEX, 'codex'],
    ['a SWE-agent trajectory (pydicom)', PYDICOM, 'swe-agent'],
    ['a SWE-agent trajectory (marshmallow)', MARSHMALLOW, 'swe-agent'],
  ] as const) {
    it(`builds from ${name} what the library builds from its records, the task its last user request`, async () => {
      const run = await cli(['optimize', '--transcript', file, '--budget', '2000', '--json']);
      expect(run.code).toBe(0);
      expect(JSON.parse(run.stdout)).toEqual(library(file, undefined, 2000));
      expect(run.stderr).toMatch(new RegExp(`^mcpctx: imported .+ \\(${format}[,)]`));
      const withFormat = await cli(['optimize', '--transcript', file, '--format', format, '--task', 'why does the test fail?', '--budget', '1500']);
      expect(withFormat.code).toBe(0);
      expect(withFormat.stdout).toBe(`${library(file, 'why does the test fail?', 1500).context}\n`.replace(/\n\n$/, '\n'));
    });
  }

  it('says on stderr what it imported and skipped, and a last line cut short', async () => {
    const text = readFileSync(CLAUDE, 'utf8');
    const cut = join(scratch, 'cut.jsonl');
    writeFileSync(cut, text.slice(0, text.length - 20)); // the newline and 19 characters of the last line
    const run = await cli(['optimize', '--transcript', cut, '--task', 'cart rounding']);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe(
      `mcpctx: imported ${cut} (claude-code, session 7d0c6a52-3f1e-4b8e-9a51-2c4f0e9b1d17): 5 messages, 3 toolOutputs, 2 errors, 1 files, 2 diffs, 2 testResults; ` +
        'skipped: summary 1, file-history-snapshot 1, user (meta) 1, assistant content thinking 1, system 1, agent-telemetry-v9 1; ' +
        `last line ${text.split('\n').length - 1} cut short (${Buffer.byteLength(text.split('\n').at(-2) as string) - 19} bytes), not read\n`,
    );
  });

  it('exits 2 naming --task when the transcript holds no user request', async () => {
    const file = join(scratch, 'no-user.jsonl');
    writeFileSync(file, '{"type":"assistant","uuid":"a1","sessionId":"s1","message":{"role":"assistant","content":[{"type":"text","text":"hello"}]}}\n');
    const run = await cli(['optimize', '--transcript', file]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('no task');
    expect(run.stderr).toContain('--task');
  });

  it('exits 2 naming --format when the format cannot be told', async () => {
    const file = join(scratch, 'unknown.jsonl');
    writeFileSync(file, '{"hello":"world"}\n');
    const run = await cli(['optimize', '--transcript', file, '--task', 'x']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--format');
  });

  it('exits 2 for both or neither of --input and --transcript, and for a file over 256 MiB', async () => {
    expect((await cli(['optimize', '--task', 'x'])).stderr).toContain('give exactly one of --input');
    expect((await cli(['optimize', '--input', CLAUDE, '--transcript', CLAUDE])).code).toBe(2);
    const big = join(scratch, 'big.jsonl');
    writeFileSync(big, '');
    truncateSync(big, 256 * 1024 * 1024 + 1);
    const run = await cli(['optimize', '--transcript', big, '--task', 'x']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('over the transcript limit');
    rmSync(big);
  });

  it('exits 3 for a transcript that cannot be read', async () => {
    const run = await cli(['optimize', '--transcript', 'missing.jsonl', '--task', 'x']);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('cannot read transcript');
  });
});
