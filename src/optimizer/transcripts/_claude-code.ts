// Claude Code session transcripts (`~/.claude/projects/<project>/<session>.jsonl`): one event a
// line. `user` and `assistant` lines carry `message.content` (a string, or blocks: text,
// thinking, tool_use, tool_result); a tool result's line also carries `toolUseResult`, the
// tool's structured result (Bash stdout/stderr, Read's file, Edit's and Write's structuredPatch).
// Every line has `uuid`, `timestamp` and `sessionId`. Other types (summary, system,
// file-history-snapshot, …) are counted and skipped.

import { isPlainObject, ownValue, type JsonObject } from '../../json/index.js';
import { type RecordCollector, sessionId, type RecordSource } from './_collect.js';
import { countSkipped, type ParsedLine } from './_lines.js';

interface PendingCall {
  name: string;
  input: JsonObject;
}

export interface ClaudeCodeResult {
  lastUserRequest?: string;
  session?: string;
}

const str = (object: JsonObject | undefined, key: string): string | undefined => {
  const value = ownValue(object, key);
  return typeof value === 'string' ? value : undefined;
};
const obj = (object: JsonObject | undefined, key: string): JsonObject | undefined => {
  const value = ownValue(object, key);
  return isPlainObject(value) ? value : undefined;
};

/** The text of a tool_result's content: a string, or text blocks. */
function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((block) => (isPlainObject(block) && str(block, 'type') === 'text' ? (str(block, 'text') ?? '') : ''))
    .filter((text) => text !== '')
    .join('\n');
}

// Lines Claude Code writes into the user's turn that the user did not type.
const NOT_TYPED = /^\s*<(?:command-name|command-message|local-command-stdout|local-command-stderr|system-reminder|user-memory-input)>|^\s*Caveat: The messages below were generated/;

export function importClaudeCode(lines: readonly ParsedLine[], collector: RecordCollector, skipped: Record<string, number>): ClaudeCodeResult {
  const pending = new Map<string, PendingCall>();
  const result: ClaudeCodeResult = {};
  for (const { value: line } of lines) {
    const type = str(line, 'type') ?? '(no type)';
    const session = sessionId(ownValue(line, 'sessionId'));
    if (session !== undefined && result.session === undefined) {
      result.session = session;
      collector.session = session;
    }
    const message = obj(line, 'message');
    if ((type !== 'user' && type !== 'assistant') || message === undefined) {
      countSkipped(skipped, type);
      continue;
    }
    const uuid = str(line, 'uuid');
    const source: RecordSource = { id: uuid, timestamp: ownValue(line, 'timestamp') };
    const content = ownValue(message, 'content');
    if (type === 'user') {
      const meta = ownValue(line, 'isMeta') === true;
      const compactSummary = ownValue(line, 'isCompactSummary') === true;
      if (typeof content === 'string') {
        if (meta) {
          countSkipped(skipped, 'user (meta)');
          continue;
        }
        collector.message(source, 'user', content);
        if (!compactSummary && !NOT_TYPED.test(content) && content.trim() !== '') result.lastUserRequest = content.trim();
        continue;
      }
      if (!Array.isArray(content)) continue;
      const texts: string[] = [];
      for (const block of content) {
        if (!isPlainObject(block)) continue;
        const blockType = str(block, 'type');
        if (blockType === 'text') texts.push(str(block, 'text') ?? '');
        else if (blockType === 'tool_result') toolResult(block, line, source, pending, collector);
        else countSkipped(skipped, `user content ${blockType ?? '(no type)'}`);
      }
      const text = texts.join('\n').trim();
      if (text !== '' && !meta) {
        collector.message(source, 'user', text);
        if (!compactSummary && !NOT_TYPED.test(text)) result.lastUserRequest = text;
      }
      continue;
    }
    // assistant
    if (typeof content === 'string') {
      collector.message(source, 'assistant', content);
      continue;
    }
    if (!Array.isArray(content)) continue;
    const texts: string[] = [];
    for (const block of content) {
      if (!isPlainObject(block)) continue;
      const blockType = str(block, 'type');
      if (blockType === 'text') texts.push(str(block, 'text') ?? '');
      else if (blockType === 'tool_use') {
        const id = str(block, 'id');
        const name = str(block, 'name');
        if (id !== undefined && name !== undefined) pending.set(id, { name, input: obj(block, 'input') ?? {} });
      } else countSkipped(skipped, `assistant content ${blockType ?? '(no type)'}`);
    }
    collector.message(source, 'assistant', texts.join('\n'));
  }
  return result;
}

function toolResult(block: JsonObject, line: JsonObject, lineSource: RecordSource, pending: Map<string, PendingCall>, collector: RecordCollector): void {
  const useId = str(block, 'tool_use_id');
  const call = useId === undefined ? undefined : pending.get(useId);
  if (useId !== undefined) pending.delete(useId);
  const source: RecordSource = { id: useId ?? lineSource.id, timestamp: lineSource.timestamp };
  const isError = ownValue(block, 'is_error') === true;
  // Claude Code wraps a refused call's message in <tool_use_error>.
  const text = resultText(ownValue(block, 'content')).replace(/^<tool_use_error>([\s\S]*)<\/tool_use_error>$/, '$1');
  const structured = obj(line, 'toolUseResult');
  const cwd = str(line, 'cwd');
  // Paths as the project names them: the session's working directory is the project root.
  const relative = (path: string): string => (cwd !== undefined && cwd !== '/' && path.startsWith(`${cwd.replace(/\/+$/, '')}/`) ? path.slice(cwd.replace(/\/+$/, '').length + 1) : path);
  const name = call?.name ?? 'tool';
  const input = call?.input ?? {};

  if (name === 'Bash' && !isError) {
    const stdout = str(structured, 'stdout');
    const stderr = str(structured, 'stderr');
    const output = stdout !== undefined || stderr !== undefined ? [stdout ?? '', stderr ?? ''].filter((part) => part !== '').join('\n') : text;
    const interrupted = ownValue(structured, 'interrupted') === true;
    // Claude Code reports a non-zero exit as an error result; a result that is not one exited 0.
    collector.toolRun(source, { tool: name, command: str(input, 'command'), output, exitCode: interrupted ? undefined : 0 });
    return;
  }
  if (name === 'Bash') {
    // A failed command's result starts with its exit code; the record carries it as exitCode.
    const exit = /^(?:Error: )?Exit code (\d+)\n?/.exec(text);
    const output = exit === null ? text : text.slice(exit[0].length);
    collector.toolRun(source, { tool: name, command: str(input, 'command'), output, exitCode: exit?.[1] === undefined ? undefined : Number(exit[1]), isError: true });
    return;
  }
  if (isError) {
    collector.toolRun(source, { tool: name, command: commandOf(name, input), output: text, isError: true });
    return;
  }
  if (name === 'Read') {
    const file = obj(structured, 'file');
    const path = str(file, 'filePath') ?? str(input, 'file_path');
    const content = str(file, 'content') ?? text;
    if (path !== undefined) {
      collector.file(source, relative(path), content);
      return;
    }
  }
  if (name === 'Edit' || name === 'MultiEdit' || name === 'Write') {
    const path = str(structured, 'filePath') ?? str(input, 'file_path');
    if (path !== undefined) {
      collector.diff(source, relative(path), editDiff(relative(path), name, structured, input));
      return;
    }
  }
  collector.toolRun(source, { tool: name, command: commandOf(name, input), output: text });
}

/** What a non-shell call was about, for its source tag: the path, pattern or URL it was given. */
function commandOf(name: string, input: JsonObject): string | undefined {
  if (name === 'Bash') return str(input, 'command');
  for (const key of ['file_path', 'path', 'pattern', 'url', 'query', 'description']) {
    const value = str(input, key);
    if (value !== undefined) return `${name} ${value}`;
  }
  return undefined;
}

/** A unified diff from Claude Code's structuredPatch hunks; from the call's strings when there are none. */
function editDiff(path: string, name: string, structured: JsonObject | undefined, input: JsonObject): string {
  const header = `--- a/${path.replace(/^\/+/, '')}\n+++ b/${path.replace(/^\/+/, '')}\n`;
  const hunks = ownValue(structured, 'structuredPatch');
  if (Array.isArray(hunks) && hunks.length > 0) {
    const parts: string[] = [];
    for (const hunk of hunks) {
      if (!isPlainObject(hunk)) continue;
      const lines = ownValue(hunk, 'lines');
      const number = (key: string): number => {
        const value = ownValue(hunk, key);
        return typeof value === 'number' ? value : 0;
      };
      parts.push(`@@ -${number('oldStart')},${number('oldLines')} +${number('newStart')},${number('newLines')} @@`);
      if (Array.isArray(lines)) for (const line of lines) if (typeof line === 'string') parts.push(line);
    }
    return `${header}${parts.join('\n')}\n`;
  }
  if (name === 'Write') {
    const content = str(structured, 'content') ?? str(input, 'content') ?? '';
    const lines = content.split('\n');
    return `${header}@@ -0,0 +1,${lines.length} @@\n${lines.map((line) => `+${line}`).join('\n')}\n`;
  }
  const oldString = str(structured, 'oldString') ?? str(input, 'old_string');
  const newString = str(structured, 'newString') ?? str(input, 'new_string');
  if (oldString === undefined || newString === undefined) return '';
  const minus = oldString.split('\n').map((line) => `-${line}`);
  const plus = newString.split('\n').map((line) => `+${line}`);
  return `${header}@@ @@\n${[...minus, ...plus].join('\n')}\n`;
}
