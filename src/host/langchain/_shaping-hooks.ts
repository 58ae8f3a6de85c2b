import type { LoadMcpToolsOptions } from '@langchain/mcp-adapters';
import { McpctxError } from '../../errors/index.js';
import { isPlainObject } from '../../json/index.js';
import { shapedReport, type HostShaped, type HostShaper, type ShapedReport } from '../_host-shaper.js';
import { callToolResultOf, toolOutputOf, untouchedOutput, type LangChainToolResult } from './_results.js';

/** The hook as @langchain/mcp-adapters types it (MultiServerMCPClient's and loadMcpTools' `afterToolCall`). */
export type AfterToolCall = NonNullable<LoadMcpToolsOptions['afterToolCall']>;
/** The tool's `[content, artifacts]` as the hook receives and answers it. */
type ToolResultTuple = Parameters<AfterToolCall>[0]['result'];
type HookAnswer = { result: ToolResultTuple };

/** One MCP tool call the hook handled, as it went to the model. */
export interface ShapedCallReport extends ShapedReport {
  readonly server: string;
  readonly tool: string;
}

export interface ShapingHooksOptions {
  /** Called once for every result the hook handled (shaped or passed), before the model sees it. */
  readonly onShaped?: (report: ShapedCallReport) => void;
}

/**
 * `afterToolCall` for MultiServerMCPClient (or loadMcpTools): every MCP tool result goes through
 * the shaper's rules (keys `SERVER/tool` with the client's server name) before the ToolMessage is
 * made. Over the cap the model gets the preview with a handle, read on with `readResultTool`.
 * An MCP error result never reaches the hook (the adapter throws it as a ToolException first).
 */
export function shapingHooks(shaper: HostShaper, options: ShapingHooksOptions = {}): { afterToolCall: AfterToolCall } {
  if (typeof shaper?.shapeAsync !== 'function') throw new McpctxError('INVALID_ARGUMENT', 'shapingHooks takes a HostShaper: shapingHooks(new HostShaper({ rules }), { onShaped? }).');
  const readResultName = shaper.readResultTool.name;
  const afterToolCall = async (call: Parameters<AfterToolCall>[0], _state: unknown, config: { signal?: AbortSignal } = {}): Promise<HookAnswer> => {
    const given = call.result as unknown as LangChainToolResult;
    const answer = (result: LangChainToolResult): HookAnswer => ({ result: result as unknown as ToolResultTuple });
    // read_result answers in pages already under the cap: shaping them again would hide the page behind another handle.
    if (call.name === readResultName) return answer(untouchedOutput(given));
    const [content, artifacts] = given;
    const shaped = await shaper.shapeAsync(
      { tool: call.name, server: call.serverName, ...(isPlainObject(call.args) ? { arguments: call.args } : {}) },
      // A string goes as it is, so that a host's notice in it is recognized and passed through.
      typeof content === 'string' ? content : callToolResultOf(content),
      config.signal,
    );
    options.onShaped?.(reportOf(call, shaped));
    if (!shaped.changed) return answer(untouchedOutput(given));
    if (typeof shaped.output === 'string') return answer([shaped.output, artifacts]);
    return answer(toolOutputOf(shaped.output as Record<string, unknown>, artifacts));
  };
  return { afterToolCall };
}

function reportOf(call: { serverName: string; name: string }, shaped: HostShaped): ShapedCallReport {
  return {
    server: call.serverName,
    tool: call.name,
    ...shapedReport(shaped),
  };
}
