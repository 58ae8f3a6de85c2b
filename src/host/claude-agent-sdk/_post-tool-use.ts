import type { HookCallback, HookCallbackMatcher, HookEvent, HookJSONOutput, PostToolUseHookInput } from '@anthropic-ai/claude-agent-sdk';
import { McpctxError } from '../../errors/index.js';
import { isPlainObject } from '../../json/index.js';
import { shapedReport, type HostShaper, type ShapedReport } from '../index.js';
import { mcpToolName } from './_tool-name.js';
import { DEFAULT_READ_RESULT_SERVER, READ_RESULT_TOOL } from './_read-result-server.js';

/** One MCP result the hook handed to the shaper, and what became of it. */
export interface ShapedCallReport extends ShapedReport {
  /** The tool as Claude Code names it: `mcp__<server>__<tool>`. */
  readonly toolName: string;
  readonly server: string;
  readonly tool: string;
  readonly toolUseId: string;
}

export interface ShapingHookOptions {
  /** Called once for every MCP result the shaper looked at (shaped, passed or a host notice). */
  readonly onShaped?: (report: ShapedCallReport) => void;
  /** The name given to `readResultServer` (default "mcpctx"): its read_result pages are never shaped again. */
  readonly readResultServer?: string;
}

/** The PostToolUse output that replaces an MCP tool's result. */
type Rewrite = HookJSONOutput & { hookSpecificOutput: { hookEventName: 'PostToolUse'; updatedMCPToolOutput: unknown; updatedToolOutput: unknown } };

/**
 * A PostToolUse hook that applies the shaper's rules to the results of MCP tools
 * (`mcp__<server>__<tool>`), in the form Claude Code hands them over, and answers with the
 * shaped result when the rules changed it; `{}` otherwise: a tool that is not an MCP tool, a
 * result the rules pass, Claude Code's own "saved to file" notice (its limit fires before hooks
 * run: the notice goes to the model untouched, and is reported), and read_result's own pages.
 * The shaped result is given as both `updatedToolOutput` (read first by current Claude Code) and
 * `updatedMCPToolOutput` (the only field older releases read); Claude Code uses one of them.
 */
export function postToolUseHook(shaper: HostShaper, options: ShapingHookOptions = {}): HookCallback {
  const ownServer = readResultServerOf(options);
  const onShaped = options.onShaped;
  if (onShaped !== undefined && typeof onShaped !== 'function') throw new McpctxError('INVALID_ARGUMENT', 'postToolUseHook: onShaped must be a function.', { option: 'onShaped' });
  return async (input, toolUseId, { signal }) => {
    if (input.hook_event_name !== 'PostToolUse') return {};
    const call = mcpCall(input);
    if (call === undefined) return {};
    if (call.tool === READ_RESULT_TOOL && call.server === ownServer) return {};
    const shaped = await shaper.shapeAsync({ server: call.server, tool: call.tool, ...argumentsOf(input.tool_input) }, input.tool_response, signal);
    onShaped?.({
      toolName: input.tool_name,
      server: call.server,
      tool: call.tool,
      toolUseId: toolUseId ?? input.tool_use_id,
      ...shapedReport(shaped),
    });
    if (!shaped.changed) return {};
    const rewrite: Rewrite = { hookSpecificOutput: { hookEventName: 'PostToolUse', updatedToolOutput: shaped.output, updatedMCPToolOutput: shaped.output } };
    return rewrite;
  };
}

/** The `hooks` option of `query()`: the shaping hook on every MCP tool. */
export function shapingHooks(shaper: HostShaper, options: ShapingHookOptions = {}): Partial<Record<HookEvent, HookCallbackMatcher[]>> {
  return { PostToolUse: [{ matcher: 'mcp__.*', hooks: [postToolUseHook(shaper, options)] }] };
}

function readResultServerOf(options: ShapingHookOptions): string {
  if (typeof options !== 'object' || options === null) throw new McpctxError('INVALID_ARGUMENT', 'The shaping hook takes an options object: { onShaped?, readResultServer? }.');
  const name = options.readResultServer ?? DEFAULT_READ_RESULT_SERVER;
  if (typeof name !== 'string' || name === '') throw new McpctxError('INVALID_ARGUMENT', 'readResultServer must be a non-empty string.', { option: 'readResultServer' });
  return name;
}

function mcpCall(input: PostToolUseHookInput): { server: string; tool: string } | undefined {
  if (typeof input.tool_name !== 'string') return undefined;
  const server = typeof input.mcp_server?.name === 'string' ? input.mcp_server.name : undefined;
  return mcpToolName(input.tool_name, server);
}

function argumentsOf(toolInput: unknown): { arguments?: Readonly<Record<string, unknown>> } {
  return isPlainObject(toolInput) ? { arguments: toolInput } : {};
}
