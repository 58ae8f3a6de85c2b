// Routing's model-call timings against a loopback fake of the Anthropic Messages API: each answer
// records its attempts' times (a 429 then a success: both), the report gives total, p50 and p95
// call time per cell, and verify names a forged time or figure. Order and presence only, never a duration.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anthropicProvider } from '../../src/providers/index.js';
import { plannedCalls, routingReceipt, runRouting, verifyRoutingReceipt, type RoutingReceipt } from '../../src/routing/index.js';
import { loadRoutingTools } from '../../src/routing/config/index.js';
import { routingMarkdown } from '../../src/routing/report/index.js';
import { AnthropicFake, apiError, messageEvents } from '../support/anthropic-fake.js';
import { smallConfig } from './_fixtures.js';

const fake = new AnthropicFake();
let receipt: RoutingReceipt;

beforeAll(async () => {
  await fake.start();
  const config = smallConfig({ protocols: ['native'], sizes: [4, 8] });
  const tools = await loadRoutingTools(config);
  const offline = await runRouting({ config, tools });
  const calls = plannedCalls({ ...offline, config, tools, model: 'claude-test-1' });
  fake.script(
    { status: 429, headers: { 'retry-after-ms': '0' }, json: apiError('rate_limit_error', 'slow down, routing timings') },
    ...calls.map(() => ({ events: messageEvents({ content: [{ type: 'text', text: 'In words.' }], stopReason: 'end_turn', usage: { input_tokens: 50, output_tokens: 3 } }) })),
  );
  const provider = anthropicProvider({ baseUrl: fake.baseUrl, env: { ANTHROPIC_API_KEY: 'sk-ant-routing-timings-canary' } });
  const run = await runRouting({ config, tools, provider, model: 'claude-test-1' });
  expect(run.failure).toBeNull();
  receipt = JSON.parse(JSON.stringify(routingReceipt(run, config))) as RoutingReceipt;
}, 60_000);

afterAll(async () => {
  await fake.close();
});

const ms = (time: string | null | undefined): number => {
  expect(typeof time).toBe('string');
  return Date.parse(time as string);
};

describe('routing model-call timings', () => {
  it('a 429 then success: the answer records the retried attempt and the answering one, in order', () => {
    const call = receipt.answers[0]?.call;
    expect(call?.retries.map((retry) => retry.status)).toEqual([429]);
    const order = [call?.retries[0]?.timing.startedAt, call?.retries[0]?.timing.endedAt, call?.timing.startedAt, call?.timing.firstByteAt, call?.timing.endedAt].map(ms);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    // The retried attempt's bytes are kept: the 429 body as received, the request as sent, the key scrubbed.
    const retry = call!.retries[0]!;
    expect(retry.raw.status).toBe(429);
    expect(retry.raw.request).toContain('"model":"claude-test-1"');
    expect(JSON.stringify(receipt)).not.toContain('sk-ant-routing-timings-canary');
  });

  it('a retried attempt\'s forged bytes fail verify naming the path and both hashes', () => {
    const forged = structuredClone(receipt);
    const retry = forged.answers[0]!.call!.retries[0]! as { raw: { request: string } };
    retry.raw.request = retry.raw.request.replace('claude-test-1', 'claude-test-2');
    expect(verifyRoutingReceipt(forged).differences).toContainEqual(expect.objectContaining({ field: 'answers[0].call.retries[0].rawRequestSha256' }));
  });

  it('every answer has its call timing, one call after another', () => {
    let previousEnd = -Infinity;
    for (const answer of receipt.answers) {
      const start = ms((answer.call?.retries[0]?.timing ?? answer.call?.timing)?.startedAt);
      expect(start).toBeGreaterThanOrEqual(previousEnd);
      previousEnd = ms(answer.call?.timing.endedAt);
    }
  });

  it('gives total, p50 and p95 call time per cell, in the report too, and the receipt verifies', () => {
    expect(receipt.callTimes?.map((cell) => [cell.protocol, cell.kind, cell.size, cell.calls])).toEqual(receipt.accuracy.map((cell) => [cell.protocol, cell.kind, cell.size, cell.requests]));
    for (const cell of receipt.callTimes ?? []) {
      for (const figure of [cell.totalMs, cell.p50Ms, cell.p95Ms]) expect(typeof figure).toBe('number');
      expect(cell.p50Ms!).toBeLessThanOrEqual(cell.p95Ms!);
    }
    expect(routingMarkdown(receipt)).toContain('## Model-call time');
    expect(verifyRoutingReceipt(receipt).differences).toEqual([]);
  });

  it('a forged p95 fails verify naming the cell', () => {
    const forged = structuredClone(receipt) as { callTimes: Array<{ p95Ms: number | null }> } & RoutingReceipt;
    const recorded = forged.callTimes[1]!.p95Ms!;
    forged.callTimes[1]!.p95Ms = recorded + 1000;
    expect(verifyRoutingReceipt(forged).differences).toContainEqual({ field: 'callTimes[1].p95Ms', recorded: recorded + 1000, recomputed: recorded });
  });

  it('a call timed before the one before it ended fails verify naming its path', () => {
    const forged = structuredClone(receipt) as RoutingReceipt & { answers: Array<{ call: { timing: { startedAt: string } } }> };
    const early = new Date(ms(receipt.answers[0]?.call?.timing.startedAt) - 1000).toISOString();
    forged.answers[2]!.call.timing.startedAt = early;
    const fields = verifyRoutingReceipt(forged).differences.map((difference) => difference.field);
    expect(fields).toContain('answers[2].call.timing.startedAt');
  });

  it('a call timing edited out of shape is a difference at its path, not an exception', () => {
    const forged = structuredClone(receipt);
    (forged.answers[1] as unknown as { call: unknown }).call = { timing: 'soon' };
    const report = verifyRoutingReceipt(forged);
    expect(report.ok).toBe(false);
    expect(report.differences.map((difference) => difference.field)).toContain('answers[1].call');
  });
});
