import { isPlainObject } from '../../json/index.js';

/**
 * Where the `recentTurns` most recent turns of a model input begin: the items before that index
 * are older. A turn is a user message, or one model response (its messages, reasoning and calls)
 * with the tool outputs that answer it: the SDK's own turn, one model call (`maxTurns` counts
 * them), so the outputs of a long tool loop age within one run. Python's ToolOutputTrimmer counts
 * only user messages, which never ages anything inside one run. Fewer turns than that: 0.
 */
export function recentTurnsStart(items: readonly unknown[], recentTurns: number): number {
  let turns = 0;
  for (let index = items.length - 1; index >= 0; index -= 1) {
    const kind = itemKind(items[index]);
    const startsTurn = kind === 'input' || (kind === 'model' && itemKind(items[index - 1]) !== 'model');
    if (!startsTurn) continue;
    turns += 1;
    if (turns === recentTurns) return index;
  }
  return 0;
}

type ItemKind = 'input' | 'output' | 'model';

/**
 * `input`: a message from the user, system or developer; `output`: what a tool gave back
 * (function_call_result, computer_call_result, shell_call_output, ...); `model`: the rest, what a
 * model response holds (assistant messages, reasoning, the calls of every kind).
 */
function itemKind(item: unknown): ItemKind | undefined {
  if (!isPlainObject(item)) return undefined;
  const type = typeof item.type === 'string' ? item.type : 'message';
  if (type === 'message') return item.role === 'assistant' ? 'model' : 'input';
  return /_(result|output)$/.test(type) ? 'output' : 'model';
}
