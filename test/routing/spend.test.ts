// What a routing run cost, against a loopback fake of the Anthropic Messages API: each answer's
// usage at the model's price per cell and run, recomputed by routing verify (a forged figure
// names its path); --max-usd stops the run before the call that could pass the cap.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anthropicProvider, type Provider } from '../../src/providers/index.js';
import { routingReceipt, runRouting, verifyRoutingReceipt } from '../../src/routing/index.js';
import { routingCsvFiles } from '../../src/routing/report/index.js';
import { AnthropicFake, messageEvents, type FakeReply } from '../support/anthropic-fake.js';
import { smallConfig } from './_fixtures.js';

const SONNET = 'claude-sonnet-4-20250514';
// 2 protocols x 1 condition x 2 requests = 4 calls: native stock, native thanks, constrained stock, constrained thanks.
const config = smallConfig({
  distractors: undefined,
  sizes: [4],
  protocols: ['native', 'constrained'],
  requests: [
    { id: 'stock', text: 'How many tubs of vanilla are in stock?', tool: 'stock_level' },
    { id: 'thanks', text: 'thank you!', tool: 'none' },
  ],
  model: { maxTokens: 64, temperature: 0 },
});

const replies = (firstInput: number): FakeReply[] => [
  { events: messageEvents({ content: [{ type: 'tool_use', id: 'toolu_1', name: 'stock_level', input: { product: 'vanilla' } }], stopReason: 'tool_use', usage: { input_tokens: firstInput, output_tokens: 20 } }) },
  { events: messageEvents({ content: [{ type: 'text', text: "You're welcome!" }], usage: { input_tokens: 790, output_tokens: 5, cache_read_input_tokens: 100 } }) },
  { events: messageEvents({ content: [{ type: 'text', text: '{"tool":"stock_level"}' }], usage: { input_tokens: 300, output_tokens: 8 } }) },
  { events: messageEvents({ content: [{ type: 'text', text: '{"tool":"none_of_these"}' }], usage: { input_tokens: 290, output_tokens: 8 } }) },
];
const usd = (input: number, output: number, cacheRead = 0): number => (input * 3 + output * 15 + cacheRead * 0.3) / 1_000_000;

let anthropic: AnthropicFake;
let provider: Provider;
beforeAll(async () => {
  anthropic = await new AnthropicFake().start();
  provider = anthropicProvider({ baseUrl: anthropic.baseUrl, apiKeyEnv: 'FAKE_KEY', env: { FAKE_KEY: 'test-key' }, maxRetries: 0 });
});
afterAll(async () => {
  await anthropic.close();
});

describe('routing spend', () => {
  it('prices each answer per cell and run at the table price; routing verify recomputes it and names a forged figure', async () => {
    anthropic.requests.length = 0;
    anthropic.script(...replies(812));
    const run = await runRouting({ config, provider, model: SONNET });
    expect(run.spend?.price).toMatchObject({ model: SONNET, from: 'table', inputPerMTok: 3, source: 'https://docs.anthropic.com/en/docs/about-claude/pricing' });
    expect(run.spend?.cells.map((cell) => [cell.protocol, cell.kind, cell.size, cell.answers, cell.usd])).toEqual([
      ['native', 'none', 4, 2, usd(812, 20) + usd(790, 5, 100)],
      ['constrained', 'none', 4, 2, usd(300, 8) + usd(290, 8)],
    ]);
    expect(run.spend?.totalUsd).toBeCloseTo(usd(812, 20) + usd(790, 5, 100) + usd(300, 8) + usd(290, 8), 12);
    const receipt = routingReceipt(run, config);
    expect(verifyRoutingReceipt(receipt)).toMatchObject({ ok: true, differences: [] });
    const forged = structuredClone(receipt) as unknown as { spend: { cells: Array<{ usd: number }> } };
    forged.spend.cells[1]!.usd = 0;
    expect(verifyRoutingReceipt(forged as never).differences).toContainEqual({ field: 'spend.cells[1].usd', recorded: 0, recomputed: usd(300, 8) + usd(290, 8) });
    // The Spend table as CSV, beside the report.
    expect(routingCsvFiles(run).get('spend.csv')).toBe(
      `scope,protocol,retriever,kind,size,answers,usd\r\ncell,native,,none,4,2,${usd(812, 20) + usd(790, 5, 100)}\r\ncell,constrained,,none,4,2,${usd(300, 8) + usd(290, 8)}\r\nrun,,,,,4,${run.spend?.totalUsd}\r\n`,
    );
  });

  it('says unknown, never $0, without a price, and refuses --max-usd then; the config\'s prices: give one', async () => {
    anthropic.requests.length = 0;
    anthropic.script(...replies(812));
    const run = await runRouting({ config, provider, model: 'claude-fake-1' });
    expect(run.spend).toMatchObject({ price: null, totalUsd: null });
    expect(run.spend?.cells.map((cell) => cell.usd)).toEqual([null, null]);
    await expect(runRouting({ config, provider, model: 'claude-fake-1', maxUsd: 1 })).rejects.toMatchObject({ code: 'USAGE' });
    expect(anthropic.requests).toHaveLength(4);

    const priced = smallConfig({ prices: [{ provider: 'anthropic', model: 'claude-fake-1', inputPerMTok: 1, outputPerMTok: 2, cacheReadPerMTok: 0.1, cacheWritePerMTok: 1.25, readOn: '2026-12-01', source: 'our contract' }] });
    expect(priced.prices).toEqual([{ provider: 'anthropic', model: 'claude-fake-1', inputPerMTok: 1, outputPerMTok: 2, cacheReadPerMTok: 0.1, cacheWritePerMTok: 1.25, readOn: '2026-12-01', source: 'our contract' }]);
    expect(() => smallConfig({ prices: [{ provider: 'anthropic', model: 'x', outputPerMTok: 2, cacheReadPerMTok: 0.1, cacheWritePerMTok: 1.25, readOn: 'today', source: 's' }] })).toThrow(/prices\[0\]\.inputPerMTok/);
  });

  it('--max-usd stops before the call whose worst case would pass the cap: the answers before it are kept and verify', async () => {
    anthropic.requests.length = 0;
    // The first answer reads a million tokens ($3): the second call's worst case passes $3.001.
    anthropic.script(...replies(1_000_000));
    const run = await runRouting({ config, provider, model: SONNET, maxUsd: 3.001 });
    expect(anthropic.requests).toHaveLength(1);
    expect(run.failure).toMatchObject({ code: 'BUDGET_STOP', call: 1, requestId: 'thanks' });
    expect(run.failure?.message).toMatch(/^stopped before a model call: \$3\.000300 committed so far, and this call could cost up to \$0\.\d+ \(at most \d+ tokens read, max_tokens 64 written\), past --max-usd \$3\.001000$/);
    expect(run.answers).toHaveLength(1);
    expect(run.spend).toMatchObject({ maxUsd: 3.001, totalUsd: usd(1_000_000, 20) });
    expect(verifyRoutingReceipt(routingReceipt(run, config))).toMatchObject({ ok: true, differences: [] });
    // Leftover replies must not answer another test.
    (anthropic as unknown as { replies: unknown[] }).replies.length = 0;
  });

  it('--resume carries the stopped run on: the paid answer is used again, only the rest is asked, and the receipt verifies', async () => {
    anthropic.requests.length = 0;
    anthropic.script(...replies(1_000_000));
    const stopped = await runRouting({ config, provider, model: SONNET, maxUsd: 3.001 });
    expect(stopped.failure?.code).toBe('BUDGET_STOP');
    (anthropic as unknown as { replies: unknown[] }).replies.length = 0;
    anthropic.requests.length = 0;
    // The three calls the stopped run did not make, answered as before.
    anthropic.script(...replies(1_000_000).slice(1));
    const resumed = await runRouting({ config, provider, model: SONNET, maxUsd: 10, resume: stopped });
    expect(anthropic.requests).toHaveLength(3);
    expect(resumed.failure).toBeNull();
    expect(resumed.answers[0]).toEqual(stopped.answers[0]);
    expect(resumed.answers.map((row) => row.outcome)).toEqual(['right', 'right', 'right', 'right']);
    // Spent once: the first call's million tokens are counted once, not twice.
    expect(resumed.spend?.totalUsd).toBeCloseTo(usd(1_000_000, 20) + usd(790, 5, 100) + usd(300, 8) + usd(290, 8), 12);
    expect(verifyRoutingReceipt(routingReceipt(resumed, config))).toMatchObject({ ok: true, differences: [] });
  });

  it('--resume refuses another model, seed or repeat, and an answer whose request this run would not send, before any call', async () => {
    anthropic.requests.length = 0;
    const stopped = { answers: [], model: { provider: 'anthropic', baseUrl: anthropic.baseUrl, name: SONNET }, seed: config.seed, repeat: 1 };
    await expect(runRouting({ config, provider, model: 'claude-opus-4-1', resume: stopped })).rejects.toMatchObject({ code: 'RESUME_MISMATCH', message: expect.stringContaining('model: stopped "claude-sonnet-4-20250514", now "claude-opus-4-1"') });
    await expect(runRouting({ config, provider, model: SONNET, resume: { ...stopped, seed: config.seed + 1 } })).rejects.toMatchObject({ code: 'RESUME_MISMATCH', message: expect.stringContaining('seed: stopped') });
    await expect(runRouting({ config, provider, model: SONNET, resume: { ...stopped, repeat: 2 } })).rejects.toMatchObject({ code: 'RESUME_MISMATCH', message: expect.stringContaining('repeat: stopped 2, now 1') });
    // A recorded answer to another request (here: the second call's answer in the first place) is never used for this call.
    anthropic.script(...replies(100));
    const full = await runRouting({ config, provider, model: SONNET });
    anthropic.requests.length = 0;
    const swapped = { ...stopped, answers: [full.answers[1]!] };
    await expect(runRouting({ config, provider, model: SONNET, resume: swapped })).rejects.toMatchObject({ code: 'RESUME_MISMATCH', message: expect.stringContaining('answer 1 of the stopped run (request "thanks"') });
    expect(anthropic.requests).toHaveLength(0);
  });
});
