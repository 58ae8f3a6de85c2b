/**
 * `verifyReceipt`'s checks of one question record: its server's frames and tool hashes, each turn
 * replayed from its recorded bytes, each tool call re-derived from the frame that answered it, the
 * totals, and the answer judged again.
 */
import { isMcpctxError } from '../../errors/index.js';
import { announcedUsage, replayResponse, sentToolResults, type ProviderName, type SentToolResult } from '../../providers/index.js';
import { canonicalJson, sha256Hex } from '../../tokens/index.js';
import { isPlainObject } from '../../json/index.js';
import { finalTextOf, judge, JUDGE_FAILURE_CODES } from './_judge.js';
import { derivedOutcome, isQuestionOutcome } from './_outcome.js';
import { modelFacingFigures, modelFacingText, rawContentFigures } from './_model-facing.js';
import { questionTotals } from './_report.js';
import { shown, type Problems } from './_verify-compare.js';
import type { Condition, FailedCallRecord, QuestionRecord, ServerRecord, Task, ToolCallRecord, ToolPaths, TurnRecord } from '../_types.js';

export interface Checked {
  questions: number;
  turns: number;
  toolCalls: number;
  frames: number;
}

export interface QuestionContext {
  provider: ProviderName | undefined;
  /** The condition's dropResultKeys from the receipt's config; undefined when the config lacks them. */
  dropResultKeys: (condition: Condition) => readonly string[] | undefined;
  tasks: readonly Task[];
  paths: ToolPaths | undefined;
  problems: Problems;
  checked: Checked;
}

/** JSON-RPC answers the server sent (a result or an error), by request id as JSON text. */
export type Answers = Map<string, Record<string, unknown>>;

const JUDGED_CODES: ReadonlySet<string> = new Set(JUDGE_FAILURE_CODES);

/** Checks the frames and tools hashes of a server record; returns the answers among its frames. */
export function verifyServer(server: ServerRecord, path: string, context: QuestionContext): Answers {
  const { problems } = context;
  context.checked.frames += server.frames.length;
  const framesText = server.frames.map((frame) => `${frame.direction} ${frame.text}\n`).join('');
  problems.compare(`${path}.framesSha256`, server.framesSha256, sha256Hex(framesText));
  problems.guard(`${path}.tools`, () => problems.compare(`${path}.toolsSha256`, server.toolsSha256, sha256Hex(canonicalJson(server.tools))));
  const answers: Answers = new Map();
  for (const frame of server.frames) {
    if (frame.direction !== 'received') continue;
    let message: unknown;
    try {
      message = JSON.parse(frame.text);
    } catch {
      continue; // a frame that is not JSON answers nothing; its bytes are still hashed above
    }
    if (!isPlainObject(message) || 'method' in message || message.id === undefined || message.id === null) continue;
    if (!('result' in message) && !('error' in message)) continue;
    const key = JSON.stringify(message.id);
    if (!answers.has(key)) answers.set(key, message);
  }
  return answers;
}

export function verifyQuestion(question: QuestionRecord, path: string, context: QuestionContext): void {
  const { problems } = context;
  context.checked.questions += 1;
  let answers: Answers | undefined;
  if (question.server !== undefined) {
    const server = question.server;
    problems.guard(`${path}.server`, () => (answers = verifyServer(server, `${path}.server`, context)));
  }
  const drop = context.dropResultKeys(question.condition);
  // A run that stopped mid-turn (an input changed before a tool call) leaves that turn's last calls unmade.
  const stoppedMidTurn = question.failure !== undefined && !isQuestionOutcome(question.failure.code);
  question.turns.forEach((turn, index) => {
    const turnPath = `${path}.turns[${index}]`;
    const cutShort = stoppedMidTurn && index === question.turns.length - 1;
    problems.guard(turnPath, () => verifyTurn(turn, turnPath, question.condition, drop, answers, context, cutShort));
  });
  question.turns.slice(1).forEach((next, index) => {
    const turnPath = `${path}.turns[${index}]`;
    problems.guard(`${turnPath}.tools`, () => verifySentResults(question.turns[index] as TurnRecord, next, turnPath, context));
  });
  problems.guard(`${path}.totals`, () => problems.compare(`${path}.totals`, question.totals, questionTotals(question.turns)));
  problems.guard(`${path}.checks`, () => verifyAnswer(question, path, context));
  problems.guard(`${path}.outcome`, () => verifyOutcome(question, path, problems));
  if (question.failedCall !== undefined) problems.guard(`${path}.failedCall`, () => verifyFailedCall(question.failedCall!, `${path}.failedCall`, context));
}

/** A failed call's hashes from its recorded bytes, and the usage its partial answer announced. */
function verifyFailedCall(failed: FailedCallRecord, path: string, context: QuestionContext): void {
  const { problems } = context;
  problems.compare(`${path}.rawRequestSha256`, failed.rawRequestSha256, sha256Hex(failed.raw.request));
  problems.compare(`${path}.rawResponseSha256`, failed.rawResponseSha256, sha256Hex(failed.raw.response));
  if (context.provider !== undefined) problems.compare(`${path}.announcedUsage`, failed.announcedUsage, announcedUsage(context.provider, failed.raw.response));
}

/**
 * The recorded outcome is the one its status and failure code give; only for a failure that
 * stopped the run (which the code alone may not place: DEADLINE is a model call's or an MCP
 * request's) either provider-failure or harness-failure stands, unless the code is the provider's own.
 */
function verifyOutcome(question: QuestionRecord, path: string, problems: Problems): void {
  if (question.outcome === undefined) return;
  const derived = derivedOutcome(question);
  if (derived !== 'harness-failure') problems.compare(`${path}.outcome`, question.outcome, derived);
  else if (question.outcome !== 'provider-failure' && question.outcome !== 'harness-failure') {
    problems.add(`${path}.outcome: recorded ${shown(question.outcome)}, but ${question.failure?.code ?? 'no code'} stopped the run: provider-failure or harness-failure`);
  }
}

/**
 * What the model saw is what was sent: each tool call's model-facing text must be the content of
 * the tool_result with its id in the next request's recorded bytes.
 */
function verifySentResults(turn: TurnRecord, next: TurnRecord, path: string, context: QuestionContext): void {
  if (context.provider === undefined || turn.tools.length === 0) return;
  let sent: SentToolResult[];
  try {
    sent = sentToolResults(context.provider, next.raw.request);
  } catch (error) {
    if (!isMcpctxError(error)) throw error;
    context.problems.add(`${path}: the next request's recorded body cannot be read for its tool results (${error.message})`);
    return;
  }
  turn.tools.forEach((call, index) => {
    const match = sent.filter((result) => result.toolUseId === call.toolUseId);
    if (match.length !== 1) {
      context.problems.add(`${path}.tools[${index}]: the next request sent ${match.length} tool_results for ${shown(call.toolUseId)}, not 1`);
    } else if (match[0]?.content !== call.modelFacingText) {
      context.problems.add(`${path}.tools[${index}].modelFacingText: recorded ${shown(call.modelFacingText)}, sent ${shown(match[0]?.content)}`);
    }
  });
}

function verifyTurn(
  turn: TurnRecord,
  path: string,
  condition: Condition,
  drop: readonly string[] | undefined,
  answers: Answers | undefined,
  context: QuestionContext,
  cutShort: boolean,
): void {
  const { problems } = context;
  context.checked.turns += 1;
  problems.compare(`${path}.rawRequestSha256`, turn.rawRequestSha256, sha256Hex(turn.raw.request));
  problems.compare(`${path}.rawResponseSha256`, turn.rawResponseSha256, sha256Hex(turn.raw.response));
  if (context.provider !== undefined) {
    try {
      const replayed = replayResponse(context.provider, turn.raw);
      problems.compare(`${path}.content`, turn.content, replayed.content);
      problems.compare(`${path}.stopReason`, turn.stopReason, replayed.stopReason);
      problems.compare(`${path}.rawStopReason`, turn.rawStopReason, replayed.rawStopReason);
      problems.compare(`${path}.usage`, turn.usage, replayed.usage);
      problems.compare(`${path}.model`, turn.model, replayed.model);
    } catch (error) {
      if (!isMcpctxError(error)) throw error;
      problems.add(`${path}.raw: the recorded response does not replay (${error.code}): ${error.message}`);
    }
  }
  // Tools are called only for a tool_use stop: a turn cut by max_tokens (or any other stop) calls none.
  const uses = turn.stopReason === 'tool_use' ? turn.content.filter((block) => block.type === 'tool_use') : [];
  if (uses.length !== turn.tools.length && !(cutShort && turn.tools.length < uses.length)) {
    problems.add(`${path}.tools: recorded ${turn.tools.length} tool calls for the ${uses.length} tool_use blocks to call in the turn's content (stop ${shown(turn.stopReason)})`);
  } else {
    uses.slice(0, turn.tools.length).forEach((use, index) => {
      const call = turn.tools[index];
      problems.compare(`${path}.tools[${index}]`, { toolUseId: call?.toolUseId, name: call?.name, arguments: call?.arguments }, { toolUseId: use.id, name: use.name, arguments: use.input });
    });
  }
  turn.tools.forEach((call, index) => {
    const callPath = `${path}.tools[${index}]`;
    problems.guard(callPath, () => verifyCall(call, callPath, condition, drop, answers, context));
  });
}

/**
 * A tool call's figures from its raw content, its model-facing text from the raw content (unless
 * the call failed before a result, or the content gave the model nothing: the runner's in-band
 * text stands then), and its raw content from the frame that answered its request.
 */
function verifyCall(call: ToolCallRecord, path: string, condition: Condition, drop: readonly string[] | undefined, answers: Answers | undefined, context: QuestionContext): void {
  const { problems } = context;
  context.checked.toolCalls += 1;
  const raw = rawContentFigures(call.rawContent);
  problems.compare(`${path}.rawContentBytes`, call.rawContentBytes, raw.bytes);
  problems.compare(`${path}.rawContentSha256`, call.rawContentSha256, raw.sha256);
  if (call.error === undefined) {
    if (drop === undefined) problems.add(`${path}.modelFacingText: cannot be re-derived: config.conditions.${condition}.dropResultKeys is absent`);
    else {
      const derived = modelFacingText(call.rawContent, call.isError, drop);
      if (!derived.empty) problems.compare(`${path}.modelFacingText`, call.modelFacingText, derived.text);
    }
  }
  const facing = modelFacingFigures(call.modelFacingText);
  problems.compare(`${path}.modelFacingBytes`, call.modelFacingBytes, facing.bytes);
  problems.compare(`${path}.modelFacingSha256`, call.modelFacingSha256, facing.sha256);
  problems.compare(`${path}.modelFacingTokens`, call.modelFacingTokens, facing.tokens);
  verifyAgainstFrame(call, path, answers, problems);
}

function verifyAgainstFrame(call: ToolCallRecord, path: string, answers: Answers | undefined, problems: Problems): void {
  if (call.rpcId === null) {
    if (call.rawContent !== null) problems.add(`${path}.rawContent: recorded ${shown(call.rawContent)}, but no request was sent (rpcId is null)`);
    return;
  }
  if (answers === undefined) {
    problems.add(`${path}.rpcId: request ${shown(call.rpcId)} cannot be found: the question has no server record with frames`);
    return;
  }
  const answer = answers.get(JSON.stringify(call.rpcId));
  if (answer === undefined) {
    if (call.error === undefined) problems.add(`${path}.rpcId: no received frame answers request ${shown(call.rpcId)}`);
    else if (call.rawContent !== null) problems.add(`${path}.rawContent: recorded ${shown(call.rawContent)}, but no received frame answers request ${shown(call.rpcId)}`);
    return;
  }
  const result = answer.result;
  if (!isPlainObject(result)) {
    if (call.rawContent !== null) problems.add(`${path}.rawContent: recorded ${shown(call.rawContent)}, but request ${shown(call.rpcId)} was answered without a result`);
    return;
  }
  if (JSON.stringify(result.content) !== JSON.stringify(call.rawContent)) {
    problems.add(`${path}.rawContent: recorded ${shown(call.rawContent)}, but the frame answering request ${shown(call.rpcId)} carries ${shown(result.content)}`);
  }
  if (call.error === undefined) problems.compare(`${path}.isError`, call.isError, result.isError === true);
}

/** The final text against the last turn, the checks judged again, and a judged pass or failure. */
function verifyAnswer(question: QuestionRecord, path: string, context: QuestionContext): void {
  const { problems } = context;
  const task = context.tasks.find((candidate) => candidate.id === question.taskId);
  if (task === undefined) {
    problems.add(`${path}.taskId: no task ${shown(question.taskId)} in tasks`);
    return;
  }
  problems.compare(`${path}.kind`, question.kind, task.kind);
  problems.compare(`${path}.question`, question.question, task.question);
  const last = question.turns.at(-1);
  if (question.finalText !== undefined) {
    if (last?.stopReason !== 'end_turn') problems.add(`${path}.finalText: recorded, but the last turn stopped with ${shown(last?.stopReason)}, not end_turn`);
    else problems.compare(`${path}.finalText`, question.finalText, finalTextOf(last.content));
  }
  const judged = question.status === 'passed' || (question.failure !== undefined && JUDGED_CODES.has(question.failure.code));
  if (context.paths === undefined) {
    if (judged || question.checks !== undefined) problems.add(`${path}.checks: cannot be judged again: config.paths is absent`);
    return;
  }
  const verdict = judge(task, question.condition, context.paths, question.turns.flatMap((turn) => turn.tools), question.finalText);
  if (question.checks !== undefined) problems.compare(`${path}.checks`, question.checks, verdict.checks);
  else if (judged) problems.add(`${path}.checks: absent, but the question was judged (${question.status})`);
  if (question.status === 'passed') {
    if (question.failure !== undefined) problems.add(`${path}.failure: recorded ${shown(question.failure)} on a passed question`);
    if (last?.stopReason !== 'end_turn' || question.finalText === undefined) problems.add(`${path}.status: recorded passed, but the question has no end_turn answer`);
    if (verdict.failure !== undefined) problems.add(`${path}.status: recorded passed, recomputed failed (${verdict.failure.code}: ${verdict.failure.message})`);
  } else if (judged) {
    if (verdict.failure === undefined) problems.add(`${path}.status: recorded ${question.status} (${question.failure?.code ?? 'no code'}), recomputed passed`);
    else {
      problems.compare(`${path}.status`, question.status, 'failed');
      problems.compare(`${path}.failure`, question.failure, verdict.failure);
    }
  }
}
