import type { Readable } from 'node:stream';
import { MAX_JSON_DEPTH, isPlainObject, nestsDeeperThan, ownValue } from '../../json/index.js';

/**
 * Most bytes of hook input read from stdin. Claude Code hands the whole tool result in it, and its
 * own limit (MAX_MCP_OUTPUT_TOKENS) keeps that far smaller unless raised; past this the hook gives up
 * and the result goes to the model as it is.
 */
export const MAX_HOOK_INPUT_BYTES = 64 * 1024 * 1024;

/** What a PostToolUse hook needs of Claude Code's input (its documented fields, read as own properties). */
export interface PostToolUseInput {
  readonly sessionId?: string;
  readonly cwd?: string;
  /** `mcp__<server>__<tool>` for an MCP tool. */
  readonly toolName: string;
  readonly toolInput?: Readonly<Record<string, unknown>>;
  readonly toolResponse: unknown;
  readonly toolUseId?: string;
  /** `mcp_server.name`: the server's name as configured, when Claude Code says it. */
  readonly serverName?: string;
}

/** The input, or why it cannot be read (said on stderr, never to the model). */
export type HookInputRead = { readonly ok: true; readonly input: PostToolUseInput } | { readonly ok: false; readonly reason: string };

/**
 * Reads the stream to its end, up to `maxBytes`. Past that, reading stops and the stream is
 * destroyed: the hook must answer rather than wait on a writer that will not stop.
 */
export async function readBoundedInput(stream: Readable | NodeJS.ReadableStream, maxBytes: number = MAX_HOOK_INPUT_BYTES): Promise<{ ok: true; text: string } | { ok: false; reason: string }> {
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of stream) {
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
      total += buffer.length;
      if (total > maxBytes) {
        if ('destroy' in stream && typeof stream.destroy === 'function') stream.destroy();
        return { ok: false, reason: `the hook input is over ${maxBytes.toLocaleString('en-US')} bytes; not read` };
      }
      chunks.push(buffer);
    }
  } catch (error) {
    return { ok: false, reason: `cannot read the hook input: ${(error as Error).message}` };
  }
  return { ok: true, text: Buffer.concat(chunks).toString('utf8') };
}

/** Claude Code's PostToolUse input from its JSON text. */
export function parseHookInput(text: string): HookInputRead {
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (error) {
    return { ok: false, reason: `the hook input is not JSON (${(error as Error).name})` };
  }
  // JSON.parse reads any depth; the shaper walks and stringifies, which recurse.
  if (nestsDeeperThan(value, MAX_JSON_DEPTH)) return { ok: false, reason: `the hook input nests deeper than ${MAX_JSON_DEPTH} levels; not read` };
  if (!isPlainObject(value)) return { ok: false, reason: 'the hook input is not a JSON object' };
  const event = ownValue(value, 'hook_event_name');
  if (event !== undefined && event !== 'PostToolUse') return { ok: false, reason: `the hook input is a ${String(event)} event, not PostToolUse` };
  const toolName = ownValue(value, 'tool_name');
  if (typeof toolName !== 'string' || toolName === '') return { ok: false, reason: 'the hook input has no tool_name' };
  if (!Object.hasOwn(value, 'tool_response')) return { ok: false, reason: 'the hook input has no tool_response' };
  const server = ownValue(value, 'mcp_server');
  const serverName = isPlainObject(server) ? ownValue(server, 'name') : undefined;
  const toolInput = ownValue(value, 'tool_input');
  return {
    ok: true,
    input: {
      toolName,
      toolResponse: ownValue(value, 'tool_response'),
      ...optionalString('sessionId', ownValue(value, 'session_id')),
      ...optionalString('cwd', ownValue(value, 'cwd')),
      ...optionalString('toolUseId', ownValue(value, 'tool_use_id')),
      ...optionalString('serverName', serverName),
      ...(isPlainObject(toolInput) ? { toolInput } : {}),
    },
  };
}

/**
 * The server and tool of an MCP tool's name as Claude Code spells it, `mcp__<server>__<tool>`;
 * undefined for a built-in tool. Claude Code writes the server's name with characters outside
 * [A-Za-z0-9_-] as `_`; when `mcp_server.name` is given, that name is the server and the rest
 * after its spelling is the tool. Otherwise the server is the part up to the next `__`.
 */
export function mcpToolOf(toolName: string, serverName?: string): { server: string; tool: string } | undefined {
  if (!toolName.startsWith('mcp__')) return undefined;
  const rest = toolName.slice('mcp__'.length);
  if (serverName !== undefined && serverName !== '') {
    const spelled = `${serverName.replace(/[^A-Za-z0-9_-]/g, '_')}__`;
    if (rest.startsWith(spelled) && rest.length > spelled.length) return { server: serverName, tool: rest.slice(spelled.length) };
  }
  const split = rest.indexOf('__');
  if (split < 1 || split + 2 >= rest.length) return undefined;
  return { server: serverName !== undefined && serverName !== '' ? serverName : rest.slice(0, split), tool: rest.slice(split + 2) };
}

function optionalString<K extends string>(key: K, value: unknown): { [P in K]?: string } {
  return (typeof value === 'string' ? { [key]: value } : {}) as { [P in K]?: string };
}
