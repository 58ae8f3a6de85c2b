import type { DynamicStructuredTool } from '@langchain/core/tools';
import { messages, tools } from './_peer.js';
import { McpctxError } from '../../errors/index.js';
import type { HostShaper } from '../_host-shaper.js';

/**
 * read_result as a LangChain tool (the gateway's name, description and input schema), reading
 * what the shaper kept behind a handle. A refusal (unknown or expired handle, bad cursor) goes to
 * the model as an error ToolMessage with the remedy, as the gateway's isError result does.
 */
export function readResultTool(shaper: HostShaper): DynamicStructuredTool {
  if (typeof shaper?.readResult !== 'function') throw new McpctxError('INVALID_ARGUMENT', 'readResultTool takes a HostShaper: readResultTool(shaper).');
  const definition = shaper.readResultTool as { name: string; description: string; inputSchema: Record<string, unknown> };
  return tools.tool(
    (args: unknown, config: { toolCall?: { id?: string } }) => {
      const read = shaper.readResult(args);
      const id = config.toolCall?.id;
      if (!read.isError || id === undefined) return read.text;
      return new messages.ToolMessage({ content: read.text, tool_call_id: id, name: definition.name, status: 'error' });
    },
    { name: definition.name, description: definition.description, schema: definition.inputSchema },
  ) as DynamicStructuredTool;
}
