// Codex CLI rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`): each line is
// `{timestamp, type, payload}`. `session_meta` names the session; `response_item` payloads are
// the model's items: `message` (role, content parts input_text/output_text), `function_call`
// (name, JSON `arguments`, `call_id`) and its `function_call_output`, `custom_tool_call` (the
// freeform apply_patch tool, `input` the patch) and its output, `local_shell_call`, `reasoning`.
// `event_msg` lines repeat what the items say for the UI; they and `turn_context` are counted and
// skipped, as are the context messages Codex itself puts in the user's turn.

import { isPlainObject, ownValue, type JsonObject } from '../../json/index.js';
import { type RecordCollector, sessionId, type RecordSource } from './_collect.js';
import { countSkipped, parseBoundedJson, type ParsedLine } from './_lines.js';

export interface CodexResult {
  lastUserRequest?: string;
  session?: string;
}

interface PendingCall {
  name: string;
  command?: string;
  patch?: string;
}

const str = (object: JsonObject | undefined, key: string): string | undefined => {
  const value = ownValue(object, key);
  return typeof value === 'string' ? value : undefined;
};

// Messages Codex writes into the user's turn: the environment, AGENTS.md, instructions.
const CONTEXT_MESSAGE = /^\s*(?:<environment_context>|<user_instructions>|<user_shell_command>|<turn_aborted>|# AGENTS\.md instructions)/;
/** Item types a legacy rollout line holds bare. */
export const LEGACY_ITEM_TYPES = new Set(['message', 'function_call', 'function_call_output', 'custom_tool_call', 'custom_tool_call_output', 'local_shell_call', 'reasoning']);
const SHELL_TOOLS = new Set(['shell', 'shell_command', 'exec_command', 'container.exec', 'local_shell']);

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) => (isPlainObject(part) ? (str(part, 'text') ?? '') : ''))
    .filter((text) => text !== '')
    .join('\n');
}

/** `["bash", "-lc", "npm test"]` → `npm test`; other argument lists are joined with spaces. */
function commandText(command: unknown): string | undefined {
  if (typeof command === 'string') return command;
  if (!Array.isArray(command) || !command.every((part) => typeof part === 'string')) return undefined;
  const parts = command as string[];
  if (parts.length === 3 && /^(?:ba|z)?sh$/.test(parts[0]?.split('/').pop() ?? '') && /^-\w*c$/.test(parts[1] ?? '')) return parts[2];
  return parts.join(' ');
}

function pendingCall(payload: JsonObject): PendingCall | undefined {
  const type = str(payload, 'type');
  if (type === 'custom_tool_call') {
    const name = str(payload, 'name') ?? 'tool';
    const input = str(payload, 'input');
    return name === 'apply_patch' ? { name, patch: input } : { name, command: input };
  }
  if (type === 'local_shell_call') {
    const action = ownValue(payload, 'action');
    return { name: 'local_shell', command: isPlainObject(action) ? commandText(ownValue(action, 'command')) : undefined };
  }
  const name = str(payload, 'name') ?? 'tool';
  const rawArguments = str(payload, 'arguments');
  const parsed = rawArguments === undefined ? undefined : parseBoundedJson(rawArguments);
  const args = parsed !== undefined && 'value' in parsed && isPlainObject(parsed.value) ? parsed.value : undefined;
  if (name === 'apply_patch') return { name, patch: str(args, 'input') ?? str(args, 'patch') };
  const command = commandText(ownValue(args, 'command') ?? ownValue(args, 'cmd'));
  if (SHELL_TOOLS.has(name)) {
    // apply_patch run through the shell: `["apply_patch", "*** Begin Patch…"]`.
    const list = ownValue(args, 'command');
    if (Array.isArray(list) && list[0] === 'apply_patch' && typeof list[1] === 'string') return { name: 'apply_patch', patch: list[1] };
    if (command?.startsWith('apply_patch') === true && command.includes('*** Begin Patch')) return { name: 'apply_patch', patch: command.slice(command.indexOf('*** Begin Patch')) };
    return { name, command };
  }
  return { name, command: rawArguments };
}

/** An output's text and exit code: `{"output", "metadata": {"exit_code"}}` JSON, or `Exit code: N … Output:` text. */
function outputOf(raw: unknown): { text: string; exitCode?: number } {
  let text = typeof raw === 'string' ? raw : isPlainObject(raw) ? contentText(ownValue(raw, 'content')) : '';
  if (text.startsWith('{')) {
    const parsed = parseBoundedJson(text);
    if ('value' in parsed && isPlainObject(parsed.value) && typeof ownValue(parsed.value, 'output') === 'string') {
      const metadata = ownValue(parsed.value, 'metadata');
      const exit = isPlainObject(metadata) ? ownValue(metadata, 'exit_code') : undefined;
      return { text: ownValue(parsed.value, 'output') as string, exitCode: typeof exit === 'number' ? exit : undefined };
    }
  }
  const header = /^Exit code: (-?\d+)\n(?:Wall time: [^\n]*\n)?(?:Total output lines: [^\n]*\n)?Output:\n/.exec(text);
  if (header?.[1] !== undefined) {
    text = text.slice(header[0].length);
    return { text, exitCode: Number(header[1]) };
  }
  return { text };
}

/** The files an apply_patch patch touches, each as a unified diff. */
export function patchDiffs(patch: string): Array<{ path: string; diff: string }> {
  const files: Array<{ path: string; diff: string }> = [];
  let current: { path: string; lines: string[] } | undefined;
  const flush = (): void => {
    if (current !== undefined) files.push({ path: current.path, diff: current.lines.join('\n') + '\n' });
    current = undefined;
  };
  for (const line of patch.replace(/\r\n/g, '\n').split('\n')) {
    const header = /^\*\*\* (Update|Add|Delete) File: (.+)$/.exec(line);
    if (header?.[1] !== undefined && header[2] !== undefined) {
      flush();
      const path = header[2].trim();
      const from = header[1] === 'Add' ? '/dev/null' : `a/${path}`;
      const to = header[1] === 'Delete' ? '/dev/null' : `b/${path}`;
      current = { path, lines: [`--- ${from}`, `+++ ${to}`] };
      if (header[1] === 'Add') current.lines.push('@@ @@');
      continue;
    }
    if (line.startsWith('*** Move to: ') && current !== undefined) {
      current.lines[1] = `+++ b/${line.slice('*** Move to: '.length).trim()}`;
      continue;
    }
    if (line.startsWith('*** ')) continue;
    current?.lines.push(line);
  }
  flush();
  return files;
}

export function importCodex(lines: readonly ParsedLine[], collector: RecordCollector, skipped: Record<string, number>): CodexResult {
  const result: CodexResult = {};
  const pending = new Map<string, PendingCall>();
  for (const { value: envelope } of lines) {
    // Rollouts before the `{timestamp, type, payload}` envelope (2025) hold the items bare.
    const bare = ownValue(envelope, 'payload') === undefined && LEGACY_ITEM_TYPES.has(str(envelope, 'type') ?? '');
    const line = bare ? { type: 'response_item', payload: envelope, timestamp: ownValue(envelope, 'timestamp') } : envelope;
    const type = str(line, 'type') ?? '(no type)';
    const payload = ownValue(line, 'payload');
    const timestamp = ownValue(line, 'timestamp');
    if (!isPlainObject(payload)) {
      countSkipped(skipped, type);
      continue;
    }
    if (type === 'session_meta') {
      const session = sessionId(ownValue(payload, 'id'));
      if (session !== undefined && result.session === undefined) {
        result.session = session;
        collector.session = session;
      }
      countSkipped(skipped, type);
      continue;
    }
    const itemType = str(payload, 'type') ?? '(no type)';
    if (type !== 'response_item') {
      countSkipped(skipped, ownValue(payload, 'type') === undefined ? type : `${type}:${itemType}`);
      continue;
    }
    const callId = str(payload, 'call_id') ?? str(payload, 'id');
    const source: RecordSource = { id: callId, timestamp };
    switch (itemType) {
      case 'message': {
        const role = str(payload, 'role');
        const text = contentText(ownValue(payload, 'content'));
        if ((role !== 'user' && role !== 'assistant') || CONTEXT_MESSAGE.test(text)) {
          countSkipped(skipped, `response_item:message (${role === 'user' || role === 'assistant' ? 'context' : (role ?? 'no role')})`);
          break;
        }
        collector.message({ id: str(payload, 'id'), timestamp }, role, text);
        if (role === 'user' && text.trim() !== '') result.lastUserRequest = text.trim();
        break;
      }
      case 'function_call':
      case 'custom_tool_call':
      case 'local_shell_call': {
        const call = pendingCall(payload);
        if (call !== undefined && callId !== undefined) pending.set(callId, call);
        break;
      }
      case 'function_call_output':
      case 'custom_tool_call_output': {
        const call = callId === undefined ? undefined : pending.get(callId);
        if (callId !== undefined) pending.delete(callId);
        const { text, exitCode } = outputOf(ownValue(payload, 'output'));
        if (call?.patch !== undefined) {
          if (exitCode !== undefined && exitCode !== 0) {
            collector.toolRun(source, { tool: 'apply_patch', output: text, exitCode, isError: true });
            break;
          }
          patchDiffs(call.patch).forEach((file, index) => collector.diff({ id: index === 0 ? callId : `${callId ?? 'patch'}:${index + 1}`, timestamp }, file.path, file.diff));
          break;
        }
        const shell = call !== undefined && SHELL_TOOLS.has(call.name);
        collector.toolRun(source, { tool: call?.name ?? 'tool', command: shell ? call.command : undefined, output: text, exitCode });
        break;
      }
      default:
        countSkipped(skipped, `response_item:${itemType}`);
    }
  }
  return result;
}
