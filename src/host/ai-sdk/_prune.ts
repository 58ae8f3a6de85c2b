import type { ModelMessage, ToolResultPart } from 'ai';
import { ai } from './_peer.js';
import { McpctxError } from '../index.js';
import { countTokens } from '../../tokens/index.js';

type ModelOutput = ToolResultPart['output'];

export interface PruneToolResultsOptions {
  /** o200k tokens of older tool results kept whole, newest first (default 20,000). */
  readonly keepRecentTokens?: number;
  /** The tool results of this many latest steps are always kept whole, whatever their size (default 1). */
  readonly keepLastSteps?: number;
  /**
   * `stub` (default): an older result's output becomes one line naming the tool, its tokens and
   * the read_result handle it showed, and its call stays paired with it. `drop`: the call and its
   * result both go (pruneMessages), as if the tool was never called.
   */
  readonly mode?: 'stub' | 'drop';
  /** Only these tools' results are pruned (default: every tool's). */
  readonly tools?: readonly string[];
  /** Called with what a step pruned, when it pruned anything. */
  readonly onPruned?: (pruned: readonly PrunedToolResult[]) => void;
}

export interface PrunedToolResult {
  readonly toolCallId: string;
  readonly tool: string;
  /** o200k tokens of the output the model no longer reads. */
  readonly tokens: number;
  readonly handle?: string;
}

/** Where a stub starts: a stub is never counted or pruned again. */
export const PRUNED_PREFIX = '[mcpctx pruned]';
const DEFAULT_KEEP_RECENT_TOKENS = 20_000;
const HANDLE = /\{"handle":"([A-Za-z0-9_-]+)"/;

interface Found {
  readonly messageIndex: number;
  readonly part: ToolResultPart;
  readonly tokens: number;
}

/**
 * A `prepareStep` that keeps older tool results under a token budget: the results of the last
 * `keepLastSteps` steps stay whole; before them, results are kept newest first while their o200k
 * tokens fit in `keepRecentTokens`; the first that does not fit and every older one are pruned.
 * pruneMessages counts messages, not tokens, and can only remove parts; here it does the `drop`
 * mode's removing (a call and its result go together, as providers require), after the token
 * count has said where the kept window starts. The app's own step results are not touched: only
 * the messages the model is sent from the next step on.
 */
export function pruneToolResults(options: PruneToolResultsOptions = {}): (step: { messages: ModelMessage[] }) => { messages: ModelMessage[] } | undefined {
  const keepRecentTokens = whole(options.keepRecentTokens, DEFAULT_KEEP_RECENT_TOKENS, 'keepRecentTokens');
  const keepLastSteps = whole(options.keepLastSteps, 1, 'keepLastSteps');
  const mode = options.mode ?? 'stub';
  if (mode !== 'stub' && mode !== 'drop') throw new McpctxError('INVALID_ARGUMENT', `pruneToolResults: mode is "stub" or "drop", not ${JSON.stringify(mode)}.`, { option: 'mode' });
  const tools = options.tools === undefined ? undefined : new Set(options.tools);
  const counted = new WeakMap<object, number>();
  const tokensOf = (output: ModelOutput): number => {
    const known = counted.get(output);
    if (known !== undefined) return known;
    const tokens = countTokens(outputText(output));
    counted.set(output, tokens);
    return tokens;
  };

  return ({ messages }) => {
    const found = toolResults(messages, tools, tokensOf);
    const over = prunedResults(messages, found, keepLastSteps, keepRecentTokens);
    if (over.length === 0) return undefined;
    // pruneMessages removes whole messages' parts: in drop mode a step's other results go with the one that overflowed.
    const newest = Math.max(...over.map((result) => result.messageIndex));
    const pruned = mode === 'drop' ? found.filter((result) => result.messageIndex <= newest) : over;
    const report = pruned.map(({ part, tokens }): PrunedToolResult => {
      const handle = HANDLE.exec(outputText(part.output))?.[1];
      return { toolCallId: part.toolCallId, tool: part.toolName, tokens, ...(handle === undefined ? {} : { handle }) };
    });
    const next = mode === 'drop' ? dropped(messages, newest, options.tools) : stubbed(messages, report);
    options.onPruned?.(report);
    return { messages: next };
  };
}

/** Every tool result part the budget applies to, oldest first; stubs left out. */
function toolResults(messages: readonly ModelMessage[], tools: ReadonlySet<string> | undefined, tokensOf: (output: ModelOutput) => number): Found[] {
  const found: Found[] = [];
  messages.forEach((message, messageIndex) => {
    if (message.role !== 'tool') return;
    for (const part of message.content) {
      if (part.type !== 'tool-result' || (tools !== undefined && !tools.has(part.toolName))) continue;
      if (part.output.type === 'text' && part.output.value.startsWith(PRUNED_PREFIX)) continue;
      found.push({ messageIndex, part, tokens: tokensOf(part.output) });
    }
  });
  return found;
}

/** The results to prune: older than the protected steps, from the first that overflows the budget back. */
function prunedResults(messages: readonly ModelMessage[], found: readonly Found[], keepLastSteps: number, budget: number): Found[] {
  const toolMessages = messages.flatMap((message, index) => (message.role === 'tool' ? [index] : []));
  const protectedFrom = keepLastSteps === 0 ? messages.length : (toolMessages[toolMessages.length - keepLastSteps] ?? 0);
  let kept = 0;
  for (let index = found.length - 1; index >= 0; index -= 1) {
    const result = found[index] as Found;
    if (result.messageIndex >= protectedFrom) continue;
    if (kept + result.tokens > budget) return found.slice(0, index + 1).filter((older) => older.messageIndex < protectedFrom);
    kept += result.tokens;
  }
  return [];
}

function stubbed(messages: readonly ModelMessage[], pruned: readonly PrunedToolResult[]): ModelMessage[] {
  const byCall = new Map(pruned.map((result) => [result.toolCallId, result]));
  return messages.map((message): ModelMessage => {
    if (message.role !== 'tool' || !message.content.some((part) => part.type === 'tool-result' && byCall.has(part.toolCallId))) return message;
    return {
      ...message,
      content: message.content.map((part) => {
        const result = part.type === 'tool-result' ? byCall.get(part.toolCallId) : undefined;
        return result === undefined ? part : { ...part, output: { type: 'text' as const, value: stubText(result) } };
      }),
    };
  });
}

function stubText(result: PrunedToolResult): string {
  const again = result.handle === undefined ? 'call the tool again if it is needed' : `read_result with {"handle":"${result.handle}"} still reads it while it is kept`;
  return `${PRUNED_PREFIX} The result of ${result.tool} (${result.tokens.toLocaleString('en-US')} tokens) was removed from the context to save tokens; ${again}.`;
}

/** Calls and results from the message of the newest pruned one back, by pruneMessages: it keeps the parts of the last N messages and every call or result paired with them. */
function dropped(messages: ModelMessage[], newest: number, tools: readonly string[] | undefined): ModelMessage[] {
  const keepLast = messages.length - newest - 1;
  return ai.pruneMessages({
    messages,
    toolCalls: [{ type: `before-last-${keepLast}-messages`, ...(tools === undefined ? {} : { tools: [...tools] }) }],
    emptyMessages: 'remove',
  });
}

/** The text the model reads in a tool result's output; a file's bytes are not counted (their cost is the provider's own). */
function outputText(output: ModelOutput): string {
  switch (output.type) {
    case 'text':
    case 'error-text':
      return output.value;
    case 'json':
    case 'error-json':
      return JSON.stringify(output.value) ?? '';
    case 'execution-denied':
      return output.reason ?? '';
    case 'content':
      return output.value.map((part) => (part.type === 'text' ? part.text : '')).join('\n\n');
    default:
      return '';
  }
}

function whole(value: number | undefined, fallback: number, option: string): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 0) throw new McpctxError('INVALID_ARGUMENT', `pruneToolResults: ${option} must be a whole number of 0 or more, not ${String(value)}.`, { option });
  return value;
}
