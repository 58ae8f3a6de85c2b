// Edits of Claude Code's JSON files (settings.json, ~/.claude.json, .mcp.json) that leave every
// other byte as it was: comments, order, spacing. jsonc-parser computes the edits.
import type * as JsoncParser from 'jsonc-parser';
import { McpctxError } from '../../errors/index.js';
import { isPlainObject } from '../../json/index.js';
import { lazyRequire } from '../../lazy/index.js';

const jsonc = lazyRequire<typeof JsoncParser>('jsonc-parser');

/** What marks a PostToolUse command as mcpctx's hook (whatever paths and flags it was installed with). */
const OUR_HOOK = /(?:^|\s)hook post-tool-use(?:\s|$)/;
/** What marks an MCP server entry as mcpctx's read_result server. */
const OUR_SERVER_ARGS = ['hook', 'results-server'];

export const HOOK_MATCHER = 'mcp__.*';
export const MAX_OUTPUT_VARIABLE = 'MAX_MCP_OUTPUT_TOKENS';

/** The document's value; a file that is not a JSON object (with comments) is refused, never rewritten. */
export function readDocument(text: string, file: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  const errors: JsoncParser.ParseError[] = [];
  const value: unknown = jsonc().parse(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length > 0 || !isPlainObject(value)) {
    const what = errors.length > 0 ? `${jsonc().printParseErrorCode(errors[0]!.error)} at offset ${errors[0]!.offset}` : 'not a JSON object';
    throw new McpctxError('INVALID_CONFIG', `${file} cannot be edited safely (${what}); it was left as it is.`, { file });
  }
  return value;
}

/** The text with `value` set at `path` (undefined: removed), formatted like the file (tabs or spaces). */
export function setAt(text: string, path: JsoncParser.JSONPath, value: unknown, insert = false): string {
  const tabs = /^\t/m.test(text);
  const edits = jsonc().modify(text, path, value, {
    formattingOptions: { insertSpaces: !tabs, tabSize: tabs ? 1 : 2, eol: text.includes('\r\n') ? '\r\n' : '\n' },
    ...(insert ? { isArrayInsertion: true } : {}),
  });
  return jsonc().applyEdits(text, edits);
}

export function isOurHookCommand(command: unknown): boolean {
  return typeof command === 'string' && OUR_HOOK.test(command);
}

export function isOurServer(entry: unknown): boolean {
  if (!isPlainObject(entry) || !Array.isArray(entry.args)) return false;
  const args = entry.args as unknown[];
  return args.some((arg, index) => arg === OUR_SERVER_ARGS[0] && args[index + 1] === OUR_SERVER_ARGS[1]);
}

/** Where mcpctx's hook commands sit in `hooks.PostToolUse`: [group, hook] pairs. */
function ourHooks(document: Record<string, unknown>, file: string): { groups: unknown[]; found: Array<[number, number]> } {
  const hooks = document.hooks;
  if (hooks === undefined) return { groups: [], found: [] };
  if (!isPlainObject(hooks)) throw new McpctxError('INVALID_CONFIG', `${file}: "hooks" is not an object; it was left as it is.`, { file });
  const groups = hooks.PostToolUse;
  if (groups === undefined) return { groups: [], found: [] };
  if (!Array.isArray(groups)) throw new McpctxError('INVALID_CONFIG', `${file}: "hooks.PostToolUse" is not a list; it was left as it is.`, { file });
  const found: Array<[number, number]> = [];
  groups.forEach((group, groupIndex) => {
    if (!isPlainObject(group) || !Array.isArray(group.hooks)) return;
    (group.hooks as unknown[]).forEach((hook, hookIndex) => {
      if (isPlainObject(hook) && isOurHookCommand(hook.command)) found.push([groupIndex, hookIndex]);
    });
  });
  return { groups, found };
}

/** The settings text with mcpctx's PostToolUse hook: an equal one is kept, an older mcpctx one gets the new command, else a group is appended after the others. */
export function withHook(text: string, file: string, command: string): { text: string; change: 'added' | 'updated' | 'unchanged' } {
  const document = readDocument(text, file);
  const { groups, found } = ourHooks(document, file);
  const commandAt = ([group, hook]: [number, number]): unknown => ((groups[group] as { hooks: Array<{ command?: unknown }> }).hooks[hook] ?? {}).command;
  if (found.some((at) => commandAt(at) === command)) return { text, change: 'unchanged' };
  const first = found[0];
  if (first !== undefined) return { text: setAt(text, ['hooks', 'PostToolUse', first[0], 'hooks', first[1], 'command'], command), change: 'updated' };
  const group = { matcher: HOOK_MATCHER, hooks: [{ type: 'command', command }] };
  if (document.hooks === undefined || (document.hooks as Record<string, unknown>).PostToolUse === undefined) return { text: setAt(text, ['hooks', 'PostToolUse'], [group]), change: 'added' };
  return { text: setAt(text, ['hooks', 'PostToolUse', groups.length], group, true), change: 'added' };
}

/** The settings text without mcpctx's hooks (a group left empty goes too; so do an empty PostToolUse and hooks). */
export function withoutHook(text: string, file: string): { text: string; removed: number } {
  const { found } = ourHooks(readDocument(text, file), file);
  let edited = text;
  // From the end, so earlier indexes stay right.
  for (const [group, hook] of [...found].reverse()) {
    const current = readDocument(edited, file);
    const hooks = ((current.hooks as Record<string, unknown>).PostToolUse as Array<{ hooks: unknown[] }>)[group]?.hooks ?? [];
    edited = hooks.length <= 1 ? setAt(edited, ['hooks', 'PostToolUse', group], undefined) : setAt(edited, ['hooks', 'PostToolUse', group, 'hooks', hook], undefined);
  }
  if (found.length > 0) {
    const after = readDocument(edited, file).hooks as Record<string, unknown>;
    if (Array.isArray(after.PostToolUse) && after.PostToolUse.length === 0) edited = setAt(edited, ['hooks', 'PostToolUse'], undefined);
    if (Object.keys(readDocument(edited, file).hooks as object).length === 0) edited = setAt(edited, ['hooks'], undefined);
  }
  return { text: edited, removed: found.length };
}

/** The env block's value of a variable (settings.json `env`), when it is a string. */
export function envValue(text: string, file: string, name: string): string | undefined {
  const env = readDocument(text, file).env;
  if (env === undefined) return undefined;
  if (!isPlainObject(env)) throw new McpctxError('INVALID_CONFIG', `${file}: "env" is not an object; it was left as it is.`, { file });
  const value = Object.hasOwn(env, name) ? env[name] : undefined;
  return typeof value === 'string' ? value : value === undefined ? undefined : String(value as number);
}

/** The text with `env.<name>` set (undefined: removed; an env block left empty goes too). */
export function withEnv(text: string, file: string, name: string, value: string | undefined): string {
  let edited = setAt(text, ['env', name], value);
  const env = readDocument(edited, file).env;
  if (value === undefined && isPlainObject(env) && Object.keys(env).length === 0) edited = setAt(edited, ['env'], undefined);
  return edited;
}

/** The MCP config text with mcpctx's read_result server under `mcpServers.<name>`. */
export function withServer(text: string, file: string, name: string, entry: Record<string, unknown>): { text: string; change: 'added' | 'updated' | 'unchanged' } {
  const servers = readDocument(text, file).mcpServers;
  if (servers !== undefined && !isPlainObject(servers)) throw new McpctxError('INVALID_CONFIG', `${file}: "mcpServers" is not an object; it was left as it is.`, { file });
  const existing = servers === undefined || !Object.hasOwn(servers, name) ? undefined : servers[name];
  if (existing !== undefined && JSON.stringify(existing) === JSON.stringify(entry)) return { text, change: 'unchanged' };
  if (existing !== undefined && !isOurServer(existing)) {
    throw new McpctxError('INVALID_CONFIG', `${file}: a server named "${name}" is already configured and is not mcpctx's; it was left as it is.`, { file });
  }
  return { text: setAt(text, ['mcpServers', name], entry), change: existing === undefined ? 'added' : 'updated' };
}

/** The MCP config text without mcpctx's server of that name (another program's server of the name is left). */
export function withoutServer(text: string, file: string, name: string): { text: string; removed: number } {
  const servers = readDocument(text, file).mcpServers;
  if (!isPlainObject(servers) || !Object.hasOwn(servers, name) || !isOurServer(servers[name])) return { text, removed: 0 };
  return { text: setAt(text, ['mcpServers', name], undefined), removed: 1 };
}
