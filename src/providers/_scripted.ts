import { readFileSync } from 'node:fs';
import { McpctxError } from '../errors/index.js';
import { canonicalJson, countTokens, sha256Hex } from '../tokens/index.js';
import { isPlainObject } from '../json/index.js';
import { checkConversation } from './_conversation.js';
import type { AssembledTurn, ChatRequest, ChatResponse, ContentBlock, Provider, StopReason, Usage } from './_types.js';

/** The assistant's answer to one request: text and tool_use blocks, in order. */
export interface ScriptedTurn {
  content: ContentBlock[];
  /** Default: `tool_use` when the content has a tool_use block, else `end_turn`. */
  stopReason?: StopReason;
  /** Default: o200k tokens of the request JSON (input) and of the content JSON (output), no cache. */
  usage?: Partial<Usage>;
}

/** A script: answers keyed by `requestKey(request)`. Stored as JSON (version 1). */
export interface ScriptedTurns {
  version: 1;
  turns: Record<string, ScriptedTurn>;
}

const STOP_REASONS: ReadonlySet<string> = new Set<StopReason>(['end_turn', 'tool_use', 'max_tokens', 'stop_sequence', 'refusal', 'other']);
const USAGE_FIELDS: ReadonlySet<string> = new Set<keyof Usage>(['inputTokens', 'outputTokens', 'cacheReadTokens', 'cacheWriteTokens']);
const TURN_FIELDS: ReadonlySet<string> = new Set<keyof ScriptedTurn>(['content', 'stopReason', 'usage']);
const REQUEST_HASH = /^[0-9a-f]{64}$/;

/**
 * A provider that answers from a script, offline: the same request always gets the same turn, and
 * a request the script lacks is NO_SCRIPTED_TURN naming its hash, so the turn can be added (see
 * `recordTurn`). `script` is the script itself or the path of its JSON file, read once, now: an
 * unreadable file is IO, a malformed one INVALID_CONFIG naming the file and every problem.
 */
export function scriptedProvider(script: ScriptedTurns | string): Provider {
  // A copy: the caller's object may change later; the answers must not.
  const turns = typeof script === 'string' ? readScript(script) : checkScript(structuredClone(script), 'the script');
  const source = typeof script === 'string' ? { script } : {};
  return {
    name: 'scripted',
    baseUrl: null,
    chat: async (request) => {
      const startedAt = new Date().toISOString();
      checkConversation(request.messages);
      const requestJson = canonicalRequest(request);
      const hash = sha256Hex(requestJson);
      const turn = turns.get(hash);
      const lastMessage = request.messages.length - 1;
      if (turn === undefined) {
        const where = typeof script === 'string' ? ` in ${script}` : '';
        throw new McpctxError('NO_SCRIPTED_TURN', `no scripted turn${where} for request ${hash} (the conversation up to message ${lastMessage})`, {
          requestHash: hash,
          lastMessage,
          ...source,
        });
      }
      return answer(request.model, requestJson, turn, startedAt);
    },
  };
}

/**
 * The script key of a request: sha256 of the canonical JSON of what the model is asked (model,
 * system, messages, tools, output schema, max tokens; not temperature or the deadline). Blocks and
 * tools are rebuilt in one key order first, so the key does not depend on how the caller's objects
 * were written; tool inputs and schemas keep their own order, which is what the model reads.
 */
export function requestKey(request: Omit<ChatRequest, 'temperature' | 'timeoutMs'>): string {
  return sha256Hex(canonicalRequest(request));
}

/** A new script with `turn` as the answer to `request` (replacing any earlier one). */
export function recordTurn(script: ScriptedTurns, request: Omit<ChatRequest, 'temperature' | 'timeoutMs'>, turn: ScriptedTurn): ScriptedTurns {
  const next: ScriptedTurns = { version: 1, turns: { ...script.turns, [requestKey(request)]: structuredClone(turn) } };
  checkScript(next, 'the recorded script');
  return next;
}

/** The canonical request JSON the scripted provider hashes and records as the request it was sent. */
export function canonicalRequest(request: Omit<ChatRequest, 'temperature' | 'timeoutMs'>): string {
  return canonicalJson({
    model: request.model,
    system: request.system,
    messages: request.messages.map((message) => ({ role: message.role, content: message.content.map(canonicalBlock) })),
    tools: request.tools?.map((tool) => ({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema })),
    outputSchema: request.outputSchema === undefined ? undefined : { name: request.outputSchema.name, schema: request.outputSchema.schema },
    maxTokens: request.maxTokens,
  });
}

function canonicalBlock(block: ContentBlock): ContentBlock {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'tool_use':
      return { type: 'tool_use', id: block.id, name: block.name, input: block.input };
    case 'tool_result':
      return { type: 'tool_result', toolUseId: block.toolUseId, content: block.content, ...(block.isError === undefined ? {} : { isError: block.isError }) };
  }
}

/**
 * The answer a recorded scripted exchange stands for, re-derived from its bytes: `request` is the
 * canonical request JSON the provider hashed, `response` the turn it answered with (checked as a
 * script's turn is). Bytes that are neither are PROVIDER_ERROR.
 */
export function replayScriptedExchange(requestJson: string, responseJson: string): AssembledTurn {
  let request: unknown;
  let turn: unknown;
  try {
    request = JSON.parse(requestJson);
    turn = JSON.parse(responseJson);
  } catch (error) {
    throw new McpctxError('PROVIDER_ERROR', `the recorded scripted exchange is not JSON: ${(error as Error).message}`);
  }
  if (!isPlainObject(request) || typeof request.model !== 'string') throw new McpctxError('PROVIDER_ERROR', 'the recorded scripted request has no model');
  const problems: string[] = [];
  checkTurn(turn, 'response', problems);
  if (problems.length > 0) throw new McpctxError('PROVIDER_ERROR', `the recorded scripted turn is malformed: ${problems.join('; ')}`, { problems });
  return answeredTurn(request.model, requestJson, turn as ScriptedTurn);
}

/** A scripted answer arrives whole: its first byte is its end. */
function answer(model: string, requestJson: string, turn: ScriptedTurn, startedAt: string): ChatResponse {
  const assembled = answeredTurn(model, requestJson, turn);
  const endedAt = new Date().toISOString();
  return {
    ...assembled,
    raw: { url: 'scripted:', request: requestJson, response: canonicalJson(turn), status: 200 },
    attempts: 1,
    timing: { startedAt, firstByteAt: endedAt, endedAt },
    retries: [],
  };
}

function answeredTurn(model: string, requestJson: string, turn: ScriptedTurn): AssembledTurn {
  const content = structuredClone(turn.content);
  const usage: Usage = {
    inputTokens: turn.usage?.inputTokens ?? countTokens(requestJson),
    outputTokens: turn.usage?.outputTokens ?? countTokens(canonicalJson(content)),
    cacheReadTokens: turn.usage?.cacheReadTokens ?? 0,
    cacheWriteTokens: turn.usage?.cacheWriteTokens ?? 0,
  };
  const stopReason = turn.stopReason ?? (content.some((block) => block.type === 'tool_use') ? 'tool_use' : 'end_turn');
  return { content, stopReason, rawStopReason: turn.stopReason ?? null, usage, model };
}

// ---- reading and checking a script ---------------------------------------------------------------

function readScript(file: string): Map<string, ScriptedTurn> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new McpctxError('IO', `Cannot read the script ${file}: ${(error as Error).message}`, { file }, { cause: error });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new McpctxError('INVALID_CONFIG', `the script ${file} is not JSON: ${(error as Error).message}`, { file, problems: ['not JSON'] });
  }
  return checkScript(parsed, `the script ${file}`, file);
}

/** Every problem of a script at once (a user fixing a file by hand wants them all). */
function checkScript(value: unknown, what: string, file?: string): Map<string, ScriptedTurn> {
  const problems: string[] = [];
  const turns = new Map<string, ScriptedTurn>();
  if (!isPlainObject(value)) {
    problems.push('must be an object { "version": 1, "turns": { ... } }');
  } else {
    if (value.version !== 1) problems.push(`version must be 1, got ${JSON.stringify(value.version) ?? 'nothing'}`);
    if (!isPlainObject(value.turns)) problems.push('turns must be an object mapping request hashes to turns');
    else {
      for (const [hash, turn] of Object.entries(value.turns)) {
        const before = problems.length;
        if (!REQUEST_HASH.test(hash)) problems.push(`turns: ${JSON.stringify(hash)} is not a request hash (64 lower-case hex digits, from requestKey)`);
        checkTurn(turn, `turns.${hash.slice(0, 12)}`, problems);
        if (problems.length === before) turns.set(hash, turn as ScriptedTurn);
      }
    }
  }
  if (problems.length > 0) {
    throw new McpctxError('INVALID_CONFIG', `${what} is malformed: ${problems.join('; ')}`, { ...(file === undefined ? {} : { file }), problems });
  }
  return turns;
}

function checkTurn(turn: unknown, where: string, problems: string[]): void {
  if (!isPlainObject(turn)) {
    problems.push(`${where} must be an object { "content": [...] }`);
    return;
  }
  for (const key of Object.keys(turn)) if (!TURN_FIELDS.has(key)) problems.push(`${where} has an unknown field ${JSON.stringify(key)} (content, stopReason, usage)`);
  if (!Array.isArray(turn.content)) problems.push(`${where}.content must be an array of text and tool_use blocks`);
  else turn.content.forEach((block, index) => checkAnswerBlock(block, `${where}.content[${index}]`, problems));
  if (turn.stopReason !== undefined && (typeof turn.stopReason !== 'string' || !STOP_REASONS.has(turn.stopReason))) {
    problems.push(`${where}.stopReason must be one of ${[...STOP_REASONS].join(', ')}, got ${JSON.stringify(turn.stopReason)}`);
  }
  if (turn.usage !== undefined) {
    if (!isPlainObject(turn.usage)) problems.push(`${where}.usage must be an object`);
    else {
      for (const [key, count] of Object.entries(turn.usage)) {
        if (!USAGE_FIELDS.has(key)) problems.push(`${where}.usage has an unknown field ${JSON.stringify(key)} (${[...USAGE_FIELDS].join(', ')})`);
        else if (typeof count !== 'number' || !Number.isInteger(count) || count < 0) problems.push(`${where}.usage.${key} must be a whole number >= 0`);
      }
    }
  }
}

/** A turn is the assistant's answer: text and tool_use blocks only. */
function checkAnswerBlock(block: unknown, where: string, problems: string[]): void {
  if (!isPlainObject(block)) problems.push(`${where} must be an object`);
  else if (block.type === 'text') {
    if (typeof block.text !== 'string') problems.push(`${where}.text must be a string`);
  } else if (block.type === 'tool_use') {
    if (typeof block.id !== 'string' || block.id === '') problems.push(`${where}.id must be a non-empty string`);
    if (typeof block.name !== 'string' || block.name === '') problems.push(`${where}.name must be a non-empty string`);
    if (!('input' in block)) problems.push(`${where}.input is missing`);
  } else {
    problems.push(`${where}.type must be "text" or "tool_use" (an assistant answer), got ${JSON.stringify(block.type)}`);
  }
}
