import type { McpSdkServerConfigWithInstance, SdkMcpToolDefinition } from '@anthropic-ai/claude-agent-sdk';
import { agentSdk } from './_peer.js';
import * as z from 'zod';
import { McpctxError } from '../../errors/index.js';
import { isPlainObject, ownValue } from '../../json/index.js';
import type { HostShaper } from '../index.js';

export const READ_RESULT_TOOL = 'read_result';
export const DEFAULT_READ_RESULT_SERVER = 'mcpctx';

type ToolAnswer = Awaited<ReturnType<SdkMcpToolDefinition['handler']>>;

/**
 * An in-process MCP server (for `query()`'s `mcpServers`, under the same name) with one tool,
 * read_result, over what the shaper keeps behind handles: the model sees it as
 * `mcp__<name>__read_result`, with the gateway's description and arguments.
 */
export function readResultServer(shaper: HostShaper, options: { name?: string } = {}): McpSdkServerConfigWithInstance {
  if (typeof options !== 'object' || options === null) throw new McpctxError('INVALID_ARGUMENT', 'readResultServer takes an options object: { name? }.');
  const name = options.name ?? DEFAULT_READ_RESULT_SERVER;
  if (typeof name !== 'string' || !/^[A-Za-z0-9_-]+$/.test(name)) {
    // Claude Code writes the server into tool names; other characters would be rewritten there.
    throw new McpctxError('INVALID_ARGUMENT', 'readResultServer: name must be letters, digits, _ or -.', { option: 'name', value: name });
  }
  const definition = shaper.readResultTool;
  const description = ownValue(definition, 'description');
  const readResult = agentSdk.tool(READ_RESULT_TOOL, typeof description === 'string' ? description : READ_RESULT_TOOL, argumentShape(ownValue(definition, 'inputSchema')), (args) =>
    Promise.resolve(shaper.readResult(args).result as ToolAnswer),
  );
  return agentSdk.createSdkMcpServer({ name, version: '1', tools: [readResult] });
}

/** The definition's arguments (all strings) as the zod shape the SDK takes; `required` ones mandatory. */
function argumentShape(schema: unknown): Record<string, z.ZodString | z.ZodOptional<z.ZodString>> {
  const properties = isPlainObject(schema) ? ownValue(schema, 'properties') : undefined;
  const required = isPlainObject(schema) ? ownValue(schema, 'required') : undefined;
  if (!isPlainObject(properties)) throw new McpctxError('INVALID_ARGUMENT', 'read_result\'s definition has no properties.');
  const shape: Record<string, z.ZodString | z.ZodOptional<z.ZodString>> = {};
  for (const [key, property] of Object.entries(properties)) {
    if (!isPlainObject(property) || ownValue(property, 'type') !== 'string') throw new McpctxError('INVALID_ARGUMENT', `read_result's argument ${key} is not a string.`, { argument: key });
    const text = ownValue(property, 'description');
    const described = typeof text === 'string' ? z.string().describe(text) : z.string();
    shape[key] = Array.isArray(required) && required.includes(key) ? described : described.optional();
  }
  return shape;
}
