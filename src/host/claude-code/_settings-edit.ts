// Edits of Claude Code's JSON files (settings.json, ~/.claude.json, .mcp.json) that leave every
// other byte as it was: comments, order, spacing. jsonc-parser computes the edits.
import type * as JsoncParser from 'jsonc-parser';
import { McpctxError } from '../../errors/index.js';
import { isPlainObject } from '../../json/index.js';
import { lazyRequire } from '../../lazy/index.js';

const jsonc = lazyRequire<typeof JsoncParser>('jsonc-parser');

/** jsonc-parser's SyntaxKind values (a const enum its types declare, which this build cannot read). */
const TOKEN = { comma: 5, lineComment: 12, blockComment: 13, lineBreak: 14, trivia: 15, eof: 17 } as const;

/** What marks a PostToolUse command as mcpctx's hook (whatever paths and flags it was installed with). */
const OUR_HOOK = /(?:^|\s)hook post-tool-use(?:\s|$)/;
/** What marks an MCP server entry as mcpctx's read_result server. */
const OUR_SERVER_ARGS = ['hook', 'results-server'];

export const HOOK_MATCHER = 'mcp__.*';

/** Which hook an edit is about: its event, the matcher of the group it is added in, and how its command is recognized. */
export interface HookPlace {
  readonly event: string;
  readonly matcher: string;
  readonly isOurs: (command: unknown) => boolean;
}

/** `mcpctx hook post-tool-use`, for MCP tools. */
export const POST_TOOL_USE_HOOK: HookPlace = { event: 'PostToolUse', matcher: HOOK_MATCHER, isOurs: (command) => isOurHookCommand(command) };
/** What marks a SessionStart command as mcpctx's compaction hook. */
const OUR_COMPACTION_HOOK = /(?:^|\s)optimizer hook(?:\s|$)/;
/** `mcpctx optimizer hook`, after a compaction. */
export const COMPACTION_HOOK: HookPlace = { event: 'SessionStart', matcher: 'compact', isOurs: (command) => typeof command === 'string' && OUR_COMPACTION_HOOK.test(command) };
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

/**
 * The text with `value` at `path`: an existing value replaced in place, a missing member added
 * after the container's last one (on its own line, indented like the file, when the container
 * spans lines), missing containers made on the way; `undefined` removes the member. jsonc-parser's
 * own formatting is not used: it reformats the whole line an edit touches, so a neighbour written
 * on one line would be rewritten.
 */
export function setAt(text: string, path: JsoncParser.JSONPath, value: unknown): string {
  const root = jsonc().parseTree(text);
  if (root === undefined) return value === undefined ? text : `${stringify(nest(path, value), layoutOf(text), '')}${layoutOf(text).eol}`;
  const node = jsonc().findNodeAtLocation(root, path);
  if (value === undefined) return node === undefined ? text : removeNode(text, node);
  if (node !== undefined) return `${text.slice(0, node.offset)}${stringify(value, layoutOf(text), lineIndent(text, node.offset))}${text.slice(node.offset + node.length)}`;
  // The deepest container that exists takes the rest of the path as one new member.
  for (let depth = path.length - 1; depth >= 0; depth -= 1) {
    const container = depth === 0 ? root : jsonc().findNodeAtLocation(root, path.slice(0, depth));
    if (container === undefined) continue;
    const key = path[depth]!;
    return addMember(text, container, typeof key === 'string' ? key : undefined, nest(path.slice(depth + 1), value));
  }
  return text;
}

/** `{a: {b: value}}` for path [a, b]; a number in the path makes a list. */
function nest(path: JsoncParser.JSONPath, value: unknown): unknown {
  return path.reduceRight<unknown>((inner, key) => (typeof key === 'number' ? [inner] : { [key]: inner }), value);
}

function layoutOf(text: string): { unit: string; eol: string } {
  const indented = /^([ \t]+)\S/m.exec(text)?.[1];
  return { unit: indented === undefined ? '  ' : indented.startsWith('\t') ? '\t' : indented, eol: text.includes('\r\n') ? '\r\n' : '\n' };
}

function lineIndent(text: string, offset: number): string {
  const start = text.lastIndexOf('\n', offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(start))?.[0] ?? '';
}

/** JSON of `value`, its lines after the first indented from `indent` by the file's unit and ended as the file ends its lines. */
function stringify(value: unknown, layout: { unit: string; eol: string }, indent: string): string {
  return JSON.stringify(value, null, layout.unit).split('\n').join(`${layout.eol}${indent}`);
}

function addMember(text: string, container: JsoncParser.Node, key: string | undefined, value: unknown): string {
  const layout = layoutOf(text);
  const { unit, eol } = layout;
  const children = container.children ?? [];
  const closing = container.offset + container.length - 1;
  const indent = lineIndent(text, container.offset);
  const multiline = /\n/.test(text.slice(container.offset, closing));
  const member = (memberIndent: string): string => `${key === undefined ? '' : `${JSON.stringify(key)}: `}${multiline ? stringify(value, layout, memberIndent) : JSON.stringify(value)}`;
  const last = children.at(-1);
  if (last === undefined) {
    const inside = multiline ? `${eol}${indent}${unit}${member(indent + unit)}` : member('');
    return `${text.slice(0, container.offset + 1)}${inside}${text.slice(container.offset + 1)}`;
  }
  const end = last.offset + last.length;
  if (!multiline) return `${text.slice(0, end)}, ${member('')}${text.slice(end)}`;
  // After the last member's line (its comma and comment stay with it), on a line of its own.
  const scanner = jsonc().createScanner(text.slice(end, closing), false);
  let comma = false;
  let at = end;
  for (let kind: number = scanner.scan(); kind !== TOKEN.eof; kind = scanner.scan()) {
    if (kind === TOKEN.lineBreak) break;
    if (kind === TOKEN.comma && !comma) comma = true;
    else if (kind !== TOKEN.trivia && kind !== TOKEN.lineComment && kind !== TOKEN.blockComment) break;
    at = end + scanner.getTokenOffset() + scanner.getTokenLength();
  }
  const memberIndent = lineIndent(text, last.offset);
  return `${text.slice(0, end)}${comma ? '' : ','}${text.slice(end, at)}${eol}${memberIndent}${member(memberIndent)}${text.slice(at)}`;
}

/**
 * The text without the member at `node` (a value: its property goes with it), undoing what
 * `addMember` did: a member on a line of its own goes with its line (from the line break before
 * it), and the comma added after the member before it goes when it was the last; a comment after
 * that member stays. On one line, the comma before it goes (or after it, when it is first).
 */
function removeNode(text: string, node: JsoncParser.Node): string {
  const target = node.parent?.type === 'property' ? node.parent : node;
  const container = target.parent;
  if (container === undefined) return '';
  const siblings = container.children ?? [];
  const index = siblings.indexOf(target);
  const previous = siblings[index - 1];
  const next = siblings[index + 1];
  const targetEnd = target.offset + target.length;
  if (previous !== undefined) {
    const previousEnd = previous.offset + previous.length;
    const gap = text.slice(previousEnd, target.offset);
    const lineBreak = Math.max(gap.lastIndexOf('\n'), -1);
    if (lineBreak >= 0) {
      const breakAt = previousEnd + lineBreak - (gap[lineBreak - 1] === '\r' ? 1 : 0);
      if (next !== undefined) {
        // `previous,⏎  target,⏎  next`: the target's line and its comma go.
        const comma = text.indexOf(',', targetEnd);
        const end = comma >= 0 && comma < next.offset ? comma + 1 : targetEnd;
        return `${text.slice(0, breakAt)}${text.slice(end)}`;
      }
      const comma = text[previousEnd] === ',' ? 1 : 0;
      return `${text.slice(0, previousEnd)}${text.slice(previousEnd + comma, breakAt)}${text.slice(targetEnd)}`;
    }
  }
  const begin = previous !== undefined ? previous.offset + previous.length : container.offset + 1;
  const end = previous === undefined && next !== undefined ? next.offset : targetEnd;
  return `${text.slice(0, begin)}${text.slice(end)}`;
}

export function isOurHookCommand(command: unknown): boolean {
  return typeof command === 'string' && OUR_HOOK.test(command);
}

export function isOurServer(entry: unknown): boolean {
  if (!isPlainObject(entry) || !Array.isArray(entry.args)) return false;
  const args = entry.args as unknown[];
  return args.some((arg, index) => arg === OUR_SERVER_ARGS[0] && args[index + 1] === OUR_SERVER_ARGS[1]);
}

/** Where mcpctx's hook commands sit in `hooks.<event>`: [group, hook] pairs. */
function ourHooks(document: Record<string, unknown>, file: string, place: HookPlace): { groups: unknown[]; found: Array<[number, number]> } {
  const hooks = document.hooks;
  if (hooks === undefined) return { groups: [], found: [] };
  if (!isPlainObject(hooks)) throw new McpctxError('INVALID_CONFIG', `${file}: "hooks" is not an object; it was left as it is.`, { file });
  const groups = Object.hasOwn(hooks, place.event) ? hooks[place.event] : undefined;
  if (groups === undefined) return { groups: [], found: [] };
  if (!Array.isArray(groups)) throw new McpctxError('INVALID_CONFIG', `${file}: "hooks.${place.event}" is not a list; it was left as it is.`, { file });
  const found: Array<[number, number]> = [];
  groups.forEach((group, groupIndex) => {
    if (!isPlainObject(group) || !Array.isArray(group.hooks)) return;
    (group.hooks as unknown[]).forEach((hook, hookIndex) => {
      if (isPlainObject(hook) && place.isOurs(hook.command)) found.push([groupIndex, hookIndex]);
    });
  });
  return { groups, found };
}

/** The settings text with mcpctx's hook: an equal one is kept, an older mcpctx one gets the new command, else a group is appended after the others. */
export function withHook(text: string, file: string, command: string, place: HookPlace = POST_TOOL_USE_HOOK): { text: string; change: 'added' | 'updated' | 'unchanged' } {
  const document = readDocument(text, file);
  const { groups, found } = ourHooks(document, file, place);
  const commandAt = ([group, hook]: [number, number]): unknown => ((groups[group] as { hooks: Array<{ command?: unknown }> }).hooks[hook] ?? {}).command;
  if (found.some((at) => commandAt(at) === command)) return { text, change: 'unchanged' };
  const first = found[0];
  if (first !== undefined) return { text: setAt(text, ['hooks', place.event, first[0], 'hooks', first[1], 'command'], command), change: 'updated' };
  const group = { matcher: place.matcher, hooks: [{ type: 'command', command }] };
  if (groups.length === 0 && (document.hooks === undefined || !Object.hasOwn(document.hooks as object, place.event))) return { text: setAt(text, ['hooks', place.event], [group]), change: 'added' };
  return { text: setAt(text, ['hooks', place.event, groups.length], group), change: 'added' };
}

/** The settings text without mcpctx's hooks of that place (a group left empty goes too; so do an empty event list and hooks). */
export function withoutHook(text: string, file: string, place: HookPlace = POST_TOOL_USE_HOOK): { text: string; removed: number } {
  const { found } = ourHooks(readDocument(text, file), file, place);
  let edited = text;
  // From the end, so earlier indexes stay right.
  for (const [group, hook] of [...found].reverse()) {
    const current = readDocument(edited, file);
    const hooks = ((current.hooks as Record<string, unknown>)[place.event] as Array<{ hooks: unknown[] }>)[group]?.hooks ?? [];
    edited = hooks.length <= 1 ? setAt(edited, ['hooks', place.event, group], undefined) : setAt(edited, ['hooks', place.event, group, 'hooks', hook], undefined);
  }
  if (found.length > 0) {
    const after = readDocument(edited, file).hooks as Record<string, unknown>;
    const left = after[place.event];
    if (Array.isArray(left) && left.length === 0) edited = setAt(edited, ['hooks', place.event], undefined);
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
