/**
 * One question in one condition: a fresh server, the model loop, the checks. The record is
 * filled in place and `persist` is called after every stage of it, so a receipt read at any moment
 * (or left by a crash) holds everything done so far.
 */
import { McpctxError, isMcpctxError } from '../errors/index.js';
import { announcedUsage, sentRequestBody, type ChatMessage, type ChatRequest, type ChatResponse, type ContentBlock, type ExchangeTiming, type Provider, type ProviderName, type RawExchange, type RetriedAttempt } from '../providers/index.js';
import { sha256Hex } from '../tokens/index.js';
import { isPlainObject, ownValue } from '../json/index.js';
import { finalTextOf, judge, modelFacingFigures, modelFacingText, questionTotals, rawContentFigures, verdictOfFailure } from './receipt/index.js';
import { ConditionServer } from './_server.js';
import type { Condition, ExperimentConfig, FailedCallRecord, QuestionRecord, Task, ToolCallRecord, TurnRecord } from './_types.js';
import { launchFor } from './config/index.js';
import type { Budget } from './_budget.js';
import { now, stepSince } from './_clock.js';

export interface QuestionContext {
  config: ExperimentConfig;
  provider: Provider;
  /** Throws SOURCE_CHANGED when an input file changed; called before every server start, model call and tool call. */
  assertInputsUnchanged: () => void;
  persist: () => void;
  /** `--max-usd`: checked before every model call, which it may stop (BUDGET_STOP). */
  budget?: Budget;
  /**
   * `--resume`: the turns the stopped run recorded for this question. While each request is the
   * one a recorded turn sent, byte for byte as parsed, its recorded answer is used again instead
   * of a paid call; `replayed` counts them.
   */
  replay?: { turns: readonly TurnRecord[]; replayed: number };
}

/** The codes a failed model call ends with: an HTTP error or cut stream, its deadline, a script without the turn. */
const PROVIDER_FAILURE_CODES: ReadonlySet<string> = new Set(['PROVIDER_ERROR', 'DEADLINE', 'NO_SCRIPTED_TURN']);

/** A failure of `provider.chat` itself, told apart from the harness's failures on its way up. */
class ModelCallFailure extends Error {
  constructor(override readonly cause: unknown) {
    super('the model call failed');
  }
}

export function newQuestionRecord(task: Task, condition: Condition): QuestionRecord {
  return { taskId: task.id, kind: task.kind, condition, question: task.question, status: 'running', turns: [], totals: questionTotals([]) };
}

/**
 * Runs the question. Never throws: a failure of the model or the answer is the record's failure
 * (the run goes on, `isQuestionOutcome`), any other (an input changed, the provider or the
 * server failed) is recorded too and returned as the reason the run must stop. The record's
 * outcome says which: a verdict, or a provider or harness failure.
 */
export async function runQuestion(record: QuestionRecord, task: Task, context: QuestionContext): Promise<McpctxError | undefined> {
  const { config, persist } = context;
  const condition = config.conditions[record.condition];
  let server: ConditionServer | undefined;
  let stop: McpctxError | undefined;
  record.timing = { startedAt: now() };
  try {
    context.assertInputsUnchanged();
    server = await ConditionServer.open(launchFor(config, record.condition), condition.tools, config.toolTimeoutMs);
    record.server = server.record;
    persist();
    await converse(record, server, context);
    const calls = record.turns.flatMap((turn) => turn.tools);
    const verdict = judge(task, record.condition, config.paths, calls, record.finalText);
    record.checks = verdict.checks;
    if (record.failure === undefined && verdict.failure !== undefined) record.failure = verdict.failure;
  } catch (error) {
    const cause = error instanceof ModelCallFailure ? error.cause : error;
    stop = isMcpctxError(cause) ? cause : new McpctxError('PROTOCOL', (cause as Error).message, {}, { cause });
    record.failure = { code: stop.code, message: stop.message };
    // Only the model call's own failures are the provider's; anything else stopping the question is the harness's.
    record.outcome = error instanceof ModelCallFailure && PROVIDER_FAILURE_CODES.has(stop.code) ? 'provider-failure' : 'harness-failure';
    // The budget stopped it before a call: not asked to its end, so no verdict and no failure of anything.
    if (stop.code === 'BUDGET_STOP') record.outcome = 'not-run';
    if (error instanceof ModelCallFailure) {
      const failed = failedCallRecord(stop, context.provider.name);
      if (failed !== undefined) record.failedCall = failed;
    }
  } finally {
    if (server !== undefined) await server.close();
    record.timing = stepSince(record.timing.startedAt);
    record.totals = questionTotals(record.turns);
    record.status = record.failure === undefined ? 'passed' : record.outcome === 'not-run' ? 'skipped' : 'failed';
    record.outcome ??= record.failure === undefined ? 'right' : (verdictOfFailure(record.failure.code) ?? 'harness-failure');
    persist();
  }
  return stop;
}

/** The failed call's record from its error's data (the HTTP providers give its last attempt), or undefined when it has none. */
function failedCallRecord(error: McpctxError, provider: ProviderName): FailedCallRecord | undefined {
  const data: unknown = error.data;
  if (!isPlainObject(data)) return undefined;
  const raw = ownValue(data, 'raw');
  const attempts = ownValue(data, 'attempts');
  const timing = ownValue(data, 'timing');
  if (!isPlainObject(raw) || typeof raw.request !== 'string' || typeof raw.response !== 'string' || typeof raw.url !== 'string' || typeof raw.status !== 'number') return undefined;
  const exchange: RawExchange = { url: raw.url, request: raw.request, response: raw.response, status: raw.status };
  return {
    code: error.code,
    attempts: typeof attempts === 'number' ? attempts : 1,
    raw: exchange,
    rawRequestSha256: sha256Hex(exchange.request),
    rawResponseSha256: sha256Hex(exchange.response),
    announcedUsage: announcedUsage(provider, exchange.response),
    timing: isPlainObject(timing) ? (timing as unknown as ExchangeTiming) : null,
    retries: retriedOf(ownValue(data, 'retried'), provider),
  };
}

/** The attempts retried before a failed call's last, from its error's data (the HTTP providers give them). */
function retriedOf(retried: unknown, provider: ProviderName): RetriedAttempt[] {
  if (!Array.isArray(retried)) return [];
  return retried.flatMap((attempt: unknown): RetriedAttempt[] => {
    const raw = isPlainObject(attempt) ? ownValue(attempt, 'raw') : undefined;
    const timing = isPlainObject(attempt) ? ownValue(attempt, 'timing') : undefined;
    if (!isPlainObject(raw) || typeof raw.request !== 'string' || typeof raw.response !== 'string' || typeof raw.url !== 'string' || typeof raw.status !== 'number' || !isPlainObject(timing)) return [];
    const exchange: RawExchange = { url: raw.url, request: raw.request, response: raw.response, status: raw.status };
    return [
      {
        raw: exchange,
        rawRequestSha256: sha256Hex(exchange.request),
        rawResponseSha256: sha256Hex(exchange.response),
        announcedUsage: exchange.status >= 200 && exchange.status <= 299 ? announcedUsage(provider, exchange.response) : null,
        timing: timing as unknown as ExchangeTiming,
      },
    ];
  });
}

/** A model turn as the receipt records it: the exchange byte for byte with its hashes, and what it said. */
export function turnRecordOf(response: ChatResponse, tools: ToolCallRecord[]): TurnRecord {
  return {
    raw: response.raw,
    rawRequestSha256: sha256Hex(response.raw.request),
    rawResponseSha256: sha256Hex(response.raw.response),
    content: response.content,
    stopReason: response.stopReason,
    rawStopReason: response.rawStopReason,
    usage: response.usage,
    model: response.model,
    attempts: response.attempts,
    tools,
    timing: response.timing,
    retries: response.retries,
  };
}

/** The tool-use loop, up to maxTurns model calls. Sets finalText on end_turn, or a failure. */
async function converse(record: QuestionRecord, server: ConditionServer, context: QuestionContext): Promise<void> {
  const { config, provider } = context;
  const tools = server.record.tools;
  const messages: ChatMessage[] = [{ role: 'user', content: [{ type: 'text', text: record.question }] }];
  for (let turnNumber = 1; turnNumber <= config.maxTurns; turnNumber += 1) {
    context.assertInputsUnchanged();
    const request: ChatRequest = {
      model: config.model.model,
      system: config.system,
      messages,
      tools,
      maxTokens: config.model.maxTokens,
      ...(config.model.temperature === undefined ? {} : { temperature: config.model.temperature }),
      timeoutMs: config.model.timeoutMs,
    };
    let response = replayedResponse(request, turnNumber, context);
    const replayed = response !== undefined;
    if (response === undefined) {
      context.budget?.check(record, request, context.replay?.replayed ?? 0);
      try {
        response = await provider.chat(request);
      } catch (error) {
        throw new ModelCallFailure(error);
      }
    }
    const turn = turnRecordOf(response, []);
    if (replayed) turn.replayed = true;
    record.turns.push(turn);
    context.persist();
    context.assertInputsUnchanged();
    if (response.stopReason === 'end_turn') {
      record.finalText = finalTextOf(response.content);
      return;
    }
    if (response.stopReason !== 'tool_use') {
      record.failure = stopFailure(response, turnNumber, config.model.maxTokens);
      return;
    }
    const uses = response.content.filter((block): block is Extract<ContentBlock, { type: 'tool_use' }> => block.type === 'tool_use');
    if (uses.length === 0) {
      record.failure = { code: 'EMPTY_TOOL_USE', message: `the model stopped for tool use on turn ${turnNumber} without a tool_use block` };
      return;
    }
    messages.push({ role: 'assistant', content: response.content });
    // One tool_result per tool_use, by construction: each use is answered, an error included.
    const results: ContentBlock[] = [];
    let lost: { name: string; cause: McpctxError } | undefined;
    for (const use of uses) {
      const { call, noResult } = await callTool(use, server, record.condition, context);
      turn.tools.push(call);
      results.push({ type: 'tool_result', toolUseId: use.id, content: call.modelFacingText, isError: call.isError });
      context.persist();
      if (noResult !== undefined) lost ??= { name: use.name, cause: noResult };
    }
    // Every use of the turn has its record (verify pairs them); then a call the server never
    // answered (it died, timed out, sent no valid result) stops the run: seed 000 makes a tool
    // failure a failed run, "not an empty match", and says nothing of the model's answer.
    if (lost !== undefined) {
      throw new McpctxError(lost.cause.code, `${lost.name} got no result on turn ${turnNumber}: ${lost.cause.message}`, lost.cause.data, { cause: lost.cause });
    }
    messages.push({ role: 'user', content: results });
    const failed = turn.tools.find((call) => call.isError);
    if (failed !== undefined) {
      record.failure = { code: 'TOOL_FAILURE', message: `${failed.name} failed on turn ${turnNumber}: ${failed.modelFacingText.slice(0, 300)}` };
      return;
    }
  }
  record.failure = { code: 'TURN_LIMIT', message: `no final answer within ${config.maxTurns} model turns` };
}

/**
 * The recorded answer to `request` when resuming and the stopped run's turn at this place sent
 * exactly this body; undefined (a live call) otherwise, and from the first difference on.
 */
function replayedResponse(request: ChatRequest, turnNumber: number, context: QuestionContext): ChatResponse | undefined {
  const replay = context.replay;
  if (replay === undefined || replay.replayed !== turnNumber - 1) return undefined;
  const turn = replay.turns[turnNumber - 1];
  if (turn === undefined) return undefined;
  let recorded: unknown;
  try {
    recorded = JSON.parse(turn.raw.request);
  } catch {
    return undefined;
  }
  if (JSON.stringify(recorded) !== JSON.stringify(sentRequestBody(context.provider.name, request))) return undefined;
  replay.replayed += 1;
  const timing = turn.timing ?? { startedAt: '', firstByteAt: null, endedAt: null };
  return { content: turn.content, stopReason: turn.stopReason, rawStopReason: turn.rawStopReason, usage: turn.usage, model: turn.model, raw: turn.raw, attempts: turn.attempts, timing, retries: turn.retries ?? [] };
}

/**
 * The failure of a turn that stopped other than for an answer or tools. Its tools are not called:
 * at max_tokens a tool_use may be cut mid-input, so no call of that turn is trusted. That is no
 * answer within the limits, this question's outcome; the run goes on.
 */
function stopFailure(response: ChatResponse, turnNumber: number, maxTokens: number): { code: string; message: string } {
  const word = response.rawStopReason ?? response.stopReason;
  if (response.stopReason !== 'max_tokens') return { code: `STOP_${word}`, message: `the model stopped with ${word} on turn ${turnNumber}; only end_turn ends a question` };
  const cut = response.content.at(-1);
  const where = cut?.type === 'tool_use' ? ` in the middle of tool_use ${JSON.stringify(cut.id)} (${cut.name}), which was not called` : '';
  return { code: `STOP_${word}`, message: `no answer within limits: the model reached max_tokens (${maxTokens}) on turn ${turnNumber}${where}` };
}

/**
 * Calls the tool a tool_use names and says what the model gets back; every outcome is a record,
 * errors included. `noResult` is set when the server gave no answer at all (anything but its own
 * JSON-RPC error, RPC_ERROR, which answers the call the model made): the harness's failure.
 */
async function callTool(
  use: Extract<ContentBlock, { type: 'tool_use' }>,
  server: ConditionServer,
  condition: Condition,
  context: QuestionContext,
): Promise<{ call: ToolCallRecord; noResult?: McpctxError }> {
  let noResult: McpctxError | undefined;
  const dropResultKeys = context.config.conditions[condition].dropResultKeys;
  let rpcId: number | string | null = null;
  let rawContent: unknown = null;
  let isError = true;
  let text: string;
  let error: string | undefined;
  context.assertInputsUnchanged();
  const startedAt = now();
  if (!server.record.tools.some((tool) => tool.name === use.name)) {
    error = `UNADVERTISED_TOOL: ${use.name} is not among the tools offered in this condition`;
  } else if (!isPlainObject(use.input)) {
    error = `INVALID_ARGUMENTS: the input of ${use.name} is not a JSON object`;
  } else {
    try {
      const outcome = await server.call(use.name, use.input);
      rpcId = outcome.rpcId;
      rawContent = outcome.result.content ?? null;
      isError = outcome.result.isError === true;
    } catch (cause) {
      if (isMcpctxError(cause, 'SOURCE_CHANGED')) throw cause;
      error = `TOOL_ERROR: ${(cause as Error).message}`;
      if (!isMcpctxError(cause, 'RPC_ERROR')) noResult = isMcpctxError(cause) ? cause : new McpctxError('PROTOCOL', (cause as Error).message, {}, { cause });
    }
  }
  // The call's own time: shaping its result for the model is the harness's, after it.
  const timing = stepSince(startedAt);
  if (error !== undefined) text = error;
  else {
    const facing = modelFacingText(rawContent, isError, dropResultKeys);
    text = facing.empty ? 'EMPTY_TOOL_CONTENT' : facing.text;
    if (facing.empty) isError = true;
  }
  const raw = rawContentFigures(rawContent);
  const facing = modelFacingFigures(text);
  const call: ToolCallRecord = {
    toolUseId: use.id,
    name: use.name,
    arguments: use.input,
    rpcId,
    isError,
    rawContent,
    rawContentBytes: raw.bytes,
    rawContentSha256: raw.sha256,
    modelFacingText: text,
    modelFacingBytes: facing.bytes,
    modelFacingSha256: facing.sha256,
    modelFacingTokens: facing.tokens,
    ...(error === undefined ? {} : { error }),
    timing,
  };
  return noResult === undefined ? { call } : { call, noResult };
}
