import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordTurn, type ScriptedTurns } from '../../src/providers/index.js';
import { loadRoutingConfig, plannedCalls, runRouting, type RoutingRun } from '../../src/routing/index.js';
import { loadRoutingTools } from '../../src/routing/config/index.js';
import { DOMAIN, UNRELATED } from './_fixtures.js';
import { runCliCaptured } from '../support/cli-run.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'mcpctx-routing-cli-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('the shipped examples', () => {
  it('shop: 8 tools, 24 requests with a tool (3 each) and 4 needing none, 24 confusable and enough unrelated for 64', async () => {
    const config = await loadRoutingConfig('examples/routing/config.yaml', ROOT);
    const tools = await loadRoutingTools(config);
    expect(tools.domain).toHaveLength(8);
    expect(tools.confusable).toHaveLength(24);
    expect(tools.unrelated.length).toBeGreaterThanOrEqual(56);
    expect(config.sizes).toEqual([8, 16, 32, 64]);
    const routed = config.requests.filter((request) => request.tool !== null);
    expect(routed).toHaveLength(24);
    for (const tool of tools.domain) expect(routed.filter((request) => request.tool === tool.name)).toHaveLength(3);
    expect(config.requests.filter((request) => request.tool === null)).toHaveLength(4);
  });

  it('github: the 117-tool catalog and at least 30 requests', async () => {
    const config = await loadRoutingConfig('examples/routing/github/config.yaml', ROOT);
    const tools = await loadRoutingTools(config);
    expect(tools.domain).toHaveLength(117);
    expect(config.requests.filter((request) => request.tool !== null).length).toBeGreaterThanOrEqual(30);
  });

  it('github blind set: frozen (its bytes hash as recorded before its first run), 40 requests, every tool in the catalog', async () => {
    const bytes = await readFile(join(ROOT, 'examples/routing/github/blind.yaml'));
    const frozen = (await readFile(join(ROOT, 'examples/routing/github/blind.sha256'), 'utf8')).split(/\s+/)[0];
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(frozen);
    const config = await loadRoutingConfig('examples/routing/github/blind.yaml', ROOT);
    const tools = await loadRoutingTools(config);
    const names = new Set(tools.domain.map((tool) => tool.name));
    expect(config.requests).toHaveLength(40);
    for (const request of config.requests) expect(names.has(request.tool ?? '')).toBe(true);
  });
});

describe('mcpctx routing', () => {
  it('runs the shop example offline and prints BM25 recall@1/3/5 per size', async () => {
    const run = await runCliCaptured(['routing', '--config', 'examples/routing/config.yaml'], ROOT);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toContain('routing: 8 domain tools, 28 requests (24 with a right tool, 4 needing none), seed 14\n');
    expect(run.stdout).toMatch(/bm25: recall@k[^\n]*\nkind +size +n +recall@1 +recall@3 +recall@5\n/);
    for (const kind of ['unrelated', 'confusable']) for (const size of [8, 16, 32, 64]) expect(run.stdout).toMatch(new RegExp(`\\n${kind} +${size} +24 +\\d\\.\\d{3} \\(\\d+/24\\)`));
    expect(run.stdout).toMatch(/catalog cost: o200k tokens[^\n]*\nkind +size +native +per tool +constrained +per tool\n/);
  });

  it('--json prints the run, the same bytes every time', async () => {
    const first = await runCliCaptured(['routing', '--config', 'examples/routing/config.yaml', '--json'], ROOT);
    const second = await runCliCaptured(['routing', '--config', 'examples/routing/config.yaml', '--json'], ROOT);
    expect(first.code).toBe(0);
    expect(second.stdout).toBe(first.stdout);
    const run = JSON.parse(first.stdout) as RoutingRun;
    expect(run.catalogs).toHaveLength(8 * 28);
    expect(run.recall).toHaveLength(8);
  });

  it('an invalid config exits 2 and lists every problem; a missing file exits 2', async () => {
    await writeFile(join(work, 'bad.yaml'), 'domain: nowhere.json\nsizes: [0]\nrequests: [{ text: hi }]\ncolour: blue\n');
    const bad = await runCliCaptured(['routing', '--config', 'bad.yaml'], work);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('Invalid routing config');
    expect(bad.stderr).toContain('  - colour: unknown key');
    expect(bad.stderr).toContain('  - sizes[0]: must be an integer');
    expect(bad.stderr).toContain('  - requests[0].tool: is required');
    expect((await runCliCaptured(['routing', '--config', 'none.yaml'], work)).code).toBe(2);
  });

  it('--help explains the experiment', async () => {
    const help = await runCliCaptured(['routing', '--help'], work);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/confusable ones first, then\s+unrelated ones/);
    expect(help.stdout).toMatch(/recall@k/);
  });

  it('--provider scripted runs the whole pipeline and prints the accuracy table', async () => {
    const file = join(work, 'small.json');
    await writeFile(
      file,
      JSON.stringify({
        seed: 3,
        domain: { tools: DOMAIN },
        distractors: { unrelated: { tools: UNRELATED } },
        sizes: [4, 8],
        requests: [
          { id: 'words', text: 'Count the words in this sign', tool: 'word_count' },
          { id: 'thanks', text: 'thank you!', tool: 'none' },
        ],
      }),
    );
    const config = await loadRoutingConfig(file);
    const tools = await loadRoutingTools(config);
    const offline = await runRouting({ config, tools });
    let script: ScriptedTurns = { version: 1, turns: {} };
    for (const call of plannedCalls({ ...offline, config, tools, model: 'm1' })) {
      const content =
        call.protocol === 'constrained'
          ? [{ type: 'text' as const, text: '{"tool":"word_count"}' }]
          : [{ type: 'text' as const, text: 'Here is my answer in words.' }];
      script = recordTurn(script, call.chat, { content, usage: { inputTokens: 100 + call.offered.length } });
    }
    await writeFile(join(work, 'turns.json'), JSON.stringify(script));
    const run = await runCliCaptured(['routing', '--config', 'small.json', '--provider', 'scripted', '--script', 'turns.json', '--model', 'm1'], work);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toContain('scripted m1: routing accuracy\n');
    expect(run.stdout).toMatch(/\nnative +unrelated +4 +1\/2 +0 +1 +0 +0\.500 +0\.09-0\.91 +0\/1 +104 /);
    expect(run.stdout).toMatch(/\nconstrained +unrelated +8 +1\/2 +0 +0 +1 +0\.500 /);
    expect(run.stdout).toMatch(/\nretrieval \(bm25\) +unrelated +8 +1\/2 +0 +1 +0 /);
  });

  it('--resume carries on a kept run into another folder; a receipt that does not verify, or --out on it, is refused (exit 2)', async () => {
    // The config and turns of the test above.
    const args = ['routing', '--config', 'small.json', '--provider', 'scripted', '--script', 'turns.json', '--model', 'm1'];
    expect((await runCliCaptured([...args, '--out', 'first'], work)).code).toBe(0);
    const resumed = await runCliCaptured([...args, '--resume', 'first', '--out', 'second'], work);
    expect(resumed).toMatchObject({ code: 0, stderr: '' });
    expect(await readFile(join(work, 'second', 'report.md'), 'utf8')).toBe(await readFile(join(work, 'first', 'report.md'), 'utf8'));
    expect((await runCliCaptured(['routing', 'verify', 'second/receipt.json'], work)).code).toBe(0);
    const same = await runCliCaptured([...args, '--resume', 'first', '--out', 'first'], work);
    expect(same.code).toBe(2);
    expect(same.stderr).toContain('--resume needs another --out folder');
    const receipt = JSON.parse(await readFile(join(work, 'first', 'receipt.json'), 'utf8')) as { answers: Array<{ chosen: string | null }> };
    receipt.answers[0]!.chosen = 'forged_tool';
    await writeFile(join(work, 'first', 'receipt.json'), JSON.stringify(receipt));
    const forged = await runCliCaptured([...args, '--resume', 'first', '--out', 'third'], work);
    expect(forged.code).toBe(2);
    expect(forged.stderr).toMatch(/--resume: .*first\/receipt\.json does not verify \(\d+ differences, the first at answers\[0\]/);
  });

  it('--repeat 3 asks each request 3 times: the same recorded turns, n three times larger, a narrower interval', async () => {
    // The config and turns of the test above: the scripted answers are keyed by request, so they serve every repetition.
    const run = await runCliCaptured(['routing', '--config', 'small.json', '--provider', 'scripted', '--script', 'turns.json', '--model', 'm1', '--repeat', '3'], work);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toContain('scripted m1: routing accuracy (each request asked 3 times)\n');
    expect(run.stdout).toMatch(/\nnative +unrelated +4 +3\/6 +0 +3 +0 +0\.500 +0\.19-0\.81 /);
    for (const bad of ['0', '1001']) expect((await runCliCaptured(['routing', '--config', 'small.json', '--repeat', bad], work)).code, bad).toBe(2);
  });

  it('provider flags are checked: --model required, --base-url for openai-compatible, --script for scripted', async () => {
    const args = ['routing', '--config', join(ROOT, 'examples/routing/config.yaml')];
    const noModel = await runCliCaptured([...args, '--provider', 'anthropic'], work);
    expect(noModel.code).toBe(2);
    expect(noModel.stderr).toContain('--provider needs --model');
    expect((await runCliCaptured([...args, '--provider', 'openai-compatible', '--model', 'x'], work)).stderr).toContain('needs --base-url');
    expect((await runCliCaptured([...args, '--provider', 'scripted', '--model', 'x'], work)).stderr).toContain('needs --script');
    expect((await runCliCaptured([...args, '--provider', 'telepathy'], work)).code).toBe(2);
  });
});
