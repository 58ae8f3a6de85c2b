import type { JSONSchema7, Tool, ToolResultPart, ToolSet } from 'ai';
import { ai } from './_peer.js';
import { McpctxError, shapedReport, type HostReadResult, type HostShaped, type HostShaper, type ShapedReport } from '../index.js';
import { isPlainObject, setOwn } from '../../json/index.js';
import { ShapedOnce } from './_shaped-once.js';

/** What a tool's toModelOutput gives the model. */
type ModelOutput = ToolResultPart['output'];
type ToModelOutput = (options: { toolCallId: string; input: unknown; output: unknown }) => ModelOutput | PromiseLike<ModelOutput>;

/** One MCP tool result as the shaper left it, for the caller's log. */
export interface AiSdkShapedReport extends ShapedReport {
  /** The tool's own name, as its server lists it. */
  readonly tool: string;
  readonly server?: string;
  readonly toolCallId: string;
}

export interface ShapeMcpToolsOptions {
  /** The server's name in the rules (`prs` for a `prs/list_pull_requests` or `prs__list_pull_requests` key); without it only bare and glob keys apply. */
  readonly server?: string;
  /** Called once for every result the shaper saw, shaped or passed. */
  readonly onShaped?: (report: AiSdkShapedReport) => void;
}

/** The read_result tool's input, as the model sends it. */
export interface ReadResultInput {
  readonly handle: string;
  readonly cursor?: string;
  readonly path?: string;
  readonly query?: string;
}

export const READ_RESULT = 'read_result';

/**
 * The tool set `mcpClient.tools()` returns, with the host rules applied: each tool's description
 * as the rules write it, and a toModelOutput that gives the model the shaped result (a projection,
 * or over the cap a preview with a read_result handle) while `execute` is left alone, so the
 * step's toolResults still hold the whole result. Adds `read_result`, which reads what was kept;
 * its answers are pages under the cap and are never shaped again. The model's copy goes through
 * the tool's own toModelOutput (the MCP client's: content blocks to text and image parts), so a
 * shaped result reaches the model the way an unshaped one would.
 */
export function shapeMcpTools<TOOLS extends ToolSet | Readonly<Record<string, object>>>(
  tools: TOOLS,
  shaper: HostShaper,
  options: ShapeMcpToolsOptions = {},
): TOOLS & { read_result: Tool<ReadResultInput, HostReadResult> } {
  if (typeof tools !== 'object' || tools === null || Array.isArray(tools)) {
    throw new McpctxError('INVALID_ARGUMENT', 'shapeMcpTools takes the tool set mcpClient.tools() returns.', { argument: 'tools' });
  }
  if (Object.hasOwn(tools, READ_RESULT)) {
    // An mcpctx gateway offers its own read_result and has shaped its results already; a second
    // read_result would hide it, and this shaper's handles mean nothing to the gateway's.
    throw new McpctxError('INVALID_ARGUMENT', 'The tool set already has a read_result tool (an mcpctx gateway shapes its results itself): pass the other servers\' tools only.', {
      argument: 'tools',
      value: READ_RESULT,
    });
  }
  const once = new ShapedOnce();
  const shaped: Record<string, unknown> = {};
  // Defined, not assigned: a server's tool named "__proto__" stays a tool.
  for (const [key, definition] of Object.entries(tools)) setOwn(shaped, key, shapedTool(key, definition as Tool, shaper, once, options));
  setOwn(shaped, READ_RESULT, readResultTool(shaper));
  return shaped as TOOLS & { read_result: Tool<ReadResultInput, HostReadResult> };
}

function shapedTool(key: string, definition: Tool, shaper: HostShaper, once: ShapedOnce, options: ShapeMcpToolsOptions): Tool {
  // @ai-sdk/mcp names the server's tool in metadata; the set's key may be the app's own name for it.
  const metadata: unknown = (definition as { metadata?: unknown }).metadata;
  const name = isPlainObject(metadata) && typeof metadata.toolName === 'string' ? metadata.toolName : key;
  const call = { tool: name, ...(options.server === undefined ? {} : { server: options.server }) };
  const modelOutput: ToModelOutput = (definition.toModelOutput as ToModelOutput | undefined) ?? defaultModelOutput;

  const toModelOutput: ToModelOutput = async ({ toolCallId, input, output }) => {
    const result = await once.get(name, toolCallId, output, async () => {
      const args = isPlainObject(input) ? input : undefined;
      const answer = await shapeOutput(shaper, { ...call, ...(args === undefined ? {} : { arguments: args }) }, output);
      options.onShaped?.(report(call, toolCallId, answer));
      return answer;
    });
    return modelOutput({ toolCallId, input, output: result.output });
  };
  return { ...definition, description: describedTool(call, definition, shaper), toModelOutput } as Tool;
}

/**
 * The shaper's answer. A tool listed with an output schema (`tools({ schemas })`) hands over its
 * structuredContent alone, a plain value the shaper does not read as a result: it is shaped as
 * the JSON the model would otherwise read, `{"result": ...}` being the form that says so.
 */
async function shapeOutput(shaper: HostShaper, call: Parameters<HostShaper['shapeAsync']>[0], output: unknown): Promise<HostShaped> {
  const answer = await shaper.shapeAsync(call, output);
  if (answer.action !== 'not-a-result' || !(isPlainObject(output) || Array.isArray(output))) return answer;
  const wrapped = await shaper.shapeAsync(call, { result: output });
  return wrapped.changed ? wrapped : answer;
}

function describedTool(call: { tool: string; server?: string }, definition: Tool, shaper: HostShaper): Tool['description'] {
  const description = definition.description;
  // A description made per call (a function) is the app's own, not the server's: left as it is.
  if (typeof description !== 'string') return description;
  const { tool: described } = shaper.describeTool(call, { name: call.tool, description });
  return typeof described.description === 'string' ? described.description : description;
}

function report(call: { tool: string; server?: string }, toolCallId: string, shaped: HostShaped): AiSdkShapedReport {
  return {
    ...call,
    toolCallId,
    ...shapedReport(shaped),
  };
}

/** What the AI SDK gives the model for a tool without toModelOutput: a string as text, anything else as JSON. */
function defaultModelOutput({ output }: { output: unknown }): ModelOutput {
  if (typeof output === 'string') return { type: 'text', value: output };
  return { type: 'json', value: JSON.parse(JSON.stringify(output ?? null) ?? 'null') as never };
}

/** read_result as an AI SDK tool: the shaper's own, its refusals (expired, bad cursor) given as tool errors with their remedy. */
function readResultTool(shaper: HostShaper): Tool<ReadResultInput, HostReadResult> {
  const definition = shaper.readResultTool;
  return ai.tool({
    description: String(definition.description),
    inputSchema: ai.jsonSchema<ReadResultInput>(definition.inputSchema as JSONSchema7),
    execute: async (input: ReadResultInput): Promise<HostReadResult> => shaper.readResult(input),
    toModelOutput: ({ output }): ModelOutput => (output.isError ? { type: 'error-text', value: output.text } : { type: 'text', value: output.text }),
  });
}
