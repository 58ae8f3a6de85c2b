import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anthropicProvider, openAiCompatibleProvider, type Provider } from '../../src/providers/index.js';
import { routingReceipt, runRouting, verifyRoutingReceipt, type RoutingReceipt, type RoutingRun } from '../../src/routing/index.js';
import { accuracyTable } from '../../src/routing/_score.js';
import { NONE_OF_THESE, reportedFirstTokenMs } from '../../src/routing/_protocols.js';
import { countTokens, sha256Hex } from '../../src/tokens/index.js';
import { AnthropicFake, messageEvents } from '../support/anthropic-fake.js';
import { chunk, startOpenAiFake, textReply, usageChunk, type OpenAiFake } from '../support/openai-fake.js';
import { smallConfig } from './_fixtures.js';

// Four domain tools, no padding: 2 protocols x 1 condition x 2 requests = 4 calls, in this order.
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

let anthropic: AnthropicFake;
let openai: OpenAiFake;
beforeAll(async () => {
  anthropic = await new AnthropicFake().start();
  openai = await startOpenAiFake();
});
afterAll(async () => {
  await anthropic.close();
  await openai.close();
});

function outcomes(run: RoutingRun): string[] {
  return run.answers.map((row) => `${row.protocol}:${row.requestId}:${row.chosen ?? '-'}:${row.outcome}`);
}

describe('against a loopback Anthropic Messages API', () => {
  it('native sends the tools field; constrained sends names and descriptions with an output schema; answers are scored', async () => {
    anthropic.requests.length = 0;
    anthropic.script(
      { events: messageEvents({ content: [{ type: 'tool_use', id: 'toolu_1', name: 'stock_level', input: { product: 'vanilla' } }], stopReason: 'tool_use', usage: { input_tokens: 812, output_tokens: 20 } }) },
      { events: messageEvents({ content: [{ type: 'text', text: "You're welcome!" }], usage: { input_tokens: 790, output_tokens: 5 } }) },
      { events: messageEvents({ content: [{ type: 'text', text: '{"tool":"word_count"}' }], usage: { input_tokens: 300, output_tokens: 8 } }) },
      { events: messageEvents({ content: [{ type: 'text', text: `{"tool":"${NONE_OF_THESE}"}` }], usage: { input_tokens: 290, output_tokens: 8 } }) },
    );
    const provider: Provider = anthropicProvider({ baseUrl: anthropic.baseUrl, apiKeyEnv: 'FAKE_KEY', env: { FAKE_KEY: 'test-key' }, maxRetries: 0 });
    const run = await runRouting({ config, provider, model: 'claude-fake-1' });
    expect(outcomes(run)).toEqual(['native:stock:stock_level:right', 'native:thanks:-:right', 'constrained:stock:word_count:wrong_tool', 'constrained:thanks:-:right']);

    const [native, , constrained] = anthropic.requests.map((request) => request.body as Record<string, unknown>);
    const catalog = run.catalogs.find((entry) => entry.requestId === 'stock')!.order;
    // Native: the request's own order of the catalog, schema and all, in the tools field; no output schema.
    expect((native!.tools as Array<{ name: string; input_schema: unknown }>).map((tool) => tool.name)).toEqual(catalog);
    expect((native!.tools as Array<{ input_schema: unknown }>)[0]!.input_schema).toMatchObject({ type: 'object' });
    expect(native!.output_config).toBeUndefined();
    expect(native!.temperature).toBe(0);
    // Constrained: no tools field; every name and description listed; the answer restricted to the names plus none_of_these.
    expect(constrained!.tools).toBeUndefined();
    for (const name of catalog) expect(constrained!.system as string).toContain(`- ${name}: `);
    expect(constrained!.output_config).toEqual({
      format: {
        type: 'json_schema',
        schema: { type: 'object', properties: { tool: { type: 'string', enum: [...catalog, NONE_OF_THESE] } }, required: ['tool'], additionalProperties: false },
      },
    });
    // Prompt tokens come from the provider's usage; catalog tokens are o200k of what was rendered.
    expect(run.answers.map((row) => row.promptTokens)).toEqual([812, 790, 300, 290]);
    expect(run.answers[0]!.catalogTokens).toBe(countTokens(JSON.stringify(run.answers[0]!.offered.map((name) => {
      const tool = (native!.tools as Array<{ name: string; description?: string; input_schema: unknown }>).find((entry) => entry.name === name)!;
      return { name: tool.name, description: tool.description, inputSchema: tool.input_schema };
    }))));
    expect(run.answers.every((row) => row.firstTokenMs === null)).toBe(true);
    expect(run.accuracy.map((cell) => [cell.protocol, cell.accuracy, cell.counts.wrong_tool])).toEqual([
      ['native', 1, 0],
      ['constrained', 0.5, 1],
    ]);
    // Verify replays the recorded event streams: the receipt holds, and a choice rewritten in the parsed content does not.
    const receipt = JSON.parse(JSON.stringify(routingReceipt(run, config))) as RoutingReceipt;
    expect(verifyRoutingReceipt(receipt).differences).toEqual([]);
    const forged = structuredClone(receipt);
    const row = forged.answers[2] as unknown as { content: Array<{ text: string }>; chosen: string; outcome: string };
    row.content[0]!.text = '{"tool":"stock_level"}';
    row.chosen = 'stock_level';
    row.outcome = 'right';
    (forged as { accuracy: unknown }).accuracy = accuracyTable(forged.answers, forged.requests.length);
    expect(verifyRoutingReceipt(forged).differences).toContainEqual({ field: 'answers[2].chosen', recorded: 'stock_level', recomputed: 'word_count' });
  });

  it('verify rebuilds each request body from the settings, the offered tools and the request: a rewritten and re-hashed body fails, naming the path', async () => {
    anthropic.script(
      { events: messageEvents({ content: [{ type: 'text', text: 'x' }], usage: { input_tokens: 10, output_tokens: 1 } }) },
      { events: messageEvents({ content: [{ type: 'text', text: 'x' }], usage: { input_tokens: 10, output_tokens: 1 } }) },
      { events: messageEvents({ content: [{ type: 'text', text: '{"tool":"word_count"}' }], usage: { input_tokens: 10, output_tokens: 1 } }) },
      { events: messageEvents({ content: [{ type: 'text', text: '{"tool":"word_count"}' }], usage: { input_tokens: 10, output_tokens: 1 } }) },
    );
    const provider: Provider = anthropicProvider({ baseUrl: anthropic.baseUrl, apiKeyEnv: 'FAKE_KEY', env: { FAKE_KEY: 'test-key' }, maxRetries: 0 });
    const receipt = JSON.parse(JSON.stringify(routingReceipt(await runRouting({ config, provider, model: 'claude-fake-1' }), config))) as RoutingReceipt;
    expect(verifyRoutingReceipt(receipt).differences).toEqual([]);
    const sent = JSON.parse(receipt.answers[0]!.requestBody) as Record<string, unknown>;
    const forge = (edit: (body: Record<string, unknown>) => void): Array<{ field: string; recorded: unknown; recomputed: unknown }> => {
      const forged = structuredClone(receipt);
      const body = structuredClone(sent);
      edit(body);
      const row = forged.answers[0] as unknown as { requestBody: string; requestSha256: string };
      row.requestBody = JSON.stringify(body);
      row.requestSha256 = sha256Hex(row.requestBody);
      return verifyRoutingReceipt(forged).differences.map(({ field, recorded, recomputed }) => ({ field, recorded, recomputed }));
    };
    expect(forge((body) => (body.max_tokens = 4096))).toEqual([{ field: 'answers[0].requestBody.max_tokens', recorded: 4096, recomputed: sent.max_tokens }]);
    expect(forge((body) => (body.system = 'Pick stock_level.'))).toEqual([{ field: 'answers[0].requestBody.system', recorded: 'Pick stock_level.', recomputed: sent.system }]);
    expect(forge((body) => (body.model = 'claude-other'))).toEqual([{ field: 'answers[0].requestBody.model', recorded: 'claude-other', recomputed: 'claude-fake-1' }]);
    const messages = sent.messages as Array<{ content: Array<{ text: string }> }>;
    const question = messages[0]!.content[0]!.text;
    expect(forge((body) => ((body.messages as typeof messages)[0]!.content[0]!.text = 'Which tool checks stock?'))).toEqual([
      { field: 'answers[0].requestBody.messages[0].content[0].text', recorded: 'Which tool checks stock?', recomputed: question },
    ]);
    const tools = sent.tools as Array<{ name: string }>;
    expect(forge((body) => (body.tools = tools.slice(1))).map((difference) => difference.field)).toContain('answers[0].requestBody.tools.length');
    // A body rewritten without re-hashing fails on its hash too.
    const unhashed = structuredClone(receipt);
    (unhashed.answers[0] as unknown as { requestBody: string }).requestBody = JSON.stringify({ ...sent, max_tokens: 1 });
    expect(verifyRoutingReceipt(unhashed).differences.map((difference) => difference.field)).toEqual(['answers[0].requestBody.max_tokens', 'answers[0].requestSha256']);
  });

  it('a text answer where a tool was needed is no tool, not a wrong tool; a call where none was needed is a wrong call', async () => {
    anthropic.script(
      { events: messageEvents({ content: [{ type: 'text', text: 'You have about twelve tubs of vanilla.' }] }) },
      { events: messageEvents({ content: [{ type: 'tool_use', id: 'toolu_2', name: 'send_message_to_lucy', input: { message: 'thanks' } }], stopReason: 'tool_use' }) },
      { events: messageEvents({ content: [{ type: 'text', text: 'stock_level, I think' }] }) },
      { events: messageEvents({ content: [{ type: 'text', text: '{"tool":"word_count"}' }] }) },
    );
    const provider = anthropicProvider({ baseUrl: anthropic.baseUrl, apiKeyEnv: 'FAKE_KEY', env: { FAKE_KEY: 'test-key' }, maxRetries: 0 });
    const run = await runRouting({ config, provider, model: 'claude-fake-1' });
    expect(outcomes(run)).toEqual(['native:stock:-:no_tool', 'native:thanks:send_message_to_lucy:wrong_call', 'constrained:stock:-:no_tool', 'constrained:thanks:word_count:wrong_call']);
    expect(run.answers[2]!.invalid).toBe(true);
    expect(run.accuracy[0]!.counts).toEqual({ right: 0, wrong_tool: 0, no_tool: 1, wrong_call: 1 });
  });
});

describe('against a loopback OpenAI-compatible API', () => {
  it('native sends function tools; constrained a strict json_schema response_format; a text answer is no tool', async () => {
    openai.requests.length = 0;
    openai.reply(
      textReply('I cannot check that right now.', 'stop', [640, 9]),
      { kind: 'sse', events: [chunk({ content: 'Glad to help!' }), chunk({ finish: 'stop' }), { ...(usageChunk(600, 4) as object), timings: { prompt_ms: 412.5, predicted_ms: 30 } }] },
      textReply('{"tool":"stock_level"}', 'stop', [200, 6]),
      textReply('{"tool":"none_of_these"}', 'stop', [190, 7]),
    );
    const provider = openAiCompatibleProvider({ baseUrl: openai.baseUrl, maxRetries: 0 });
    const run = await runRouting({ config, provider, model: 'qwen2.5:1.5b' });
    expect(outcomes(run)).toEqual(['native:stock:-:no_tool', 'native:thanks:-:right', 'constrained:stock:stock_level:right', 'constrained:thanks:-:right']);
    const [native, , constrained] = openai.requests.map((request) => request.body as Record<string, unknown>);
    const catalog = run.catalogs.find((entry) => entry.requestId === 'stock')!.order;
    expect(openai.requests.every((request) => request.path === '/v1/chat/completions')).toBe(true);
    expect((native!.tools as Array<{ type: string; function: { name: string; parameters: unknown } }>).map((tool) => [tool.type, tool.function.name])).toEqual(catalog.map((name) => ['function', name]));
    expect(native!.response_format).toBeUndefined();
    expect(constrained!.tools).toBeUndefined();
    expect(constrained!.response_format).toEqual({
      type: 'json_schema',
      json_schema: {
        name: 'tool_choice',
        strict: true,
        schema: { type: 'object', properties: { tool: { type: 'string', enum: [...catalog, NONE_OF_THESE] } }, required: ['tool'], additionalProperties: false },
      },
    });
    expect(run.answers.map((row) => row.promptTokens)).toEqual([640, 600, 200, 190]);
    // Time to first token only where the API reports it (llama.cpp's timings.prompt_ms).
    expect(run.answers.map((row) => row.firstTokenMs)).toEqual([null, 412.5, null, null]);
    expect(verifyRoutingReceipt(JSON.parse(JSON.stringify(routingReceipt(run, config))) as RoutingReceipt).differences).toEqual([]);
  });
});

describe('reportedFirstTokenMs', () => {
  it('reads timings.prompt_ms from a data line, nothing else', () => {
    expect(reportedFirstTokenMs('data: {"choices":[]}\n\ndata: {"timings":{"prompt_ms":12.3456}}\n\ndata: [DONE]\n')).toBe(12.346);
    expect(reportedFirstTokenMs('event: message_start\ndata: {"type":"message_start"}\n')).toBeNull();
    expect(reportedFirstTokenMs('data: {"timings":{"prompt_ms":"fast"}}\n')).toBeNull();
  });
});
