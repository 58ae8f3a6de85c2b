// A live MCP session over real stdio for integration tests of servers we ship: our own bounded
// transport and raw client, so results are the wire JSON (key order and every field kept).
import { BoundedStdioTransport, Deadline, RawClient, initialize, listAllTools, type ExitStatus } from '../../src/mcp/index.js';
import { markedEnv } from './processes.js';

export interface McpSession {
  /** `tools/call`, resolving to the raw result object (an error reply rejects). */
  call(name: string, args?: Record<string, unknown>): Promise<RawToolResult>;
  listTools(): Promise<Array<{ name: string } & Record<string, unknown>>>;
  close(): Promise<ExitStatus>;
  /** What the server wrote on stderr (tail). */
  stderr(): string;
  /** How many stdout lines were not JSON-RPC (a server must print nothing else there). */
  noiseLines(): number;
}

export interface RawToolResult {
  content: Array<{ type: string; text?: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  [key: string]: unknown;
}

const CALL_BUDGET_MS = 30_000;

/** Starts `node <args>` with a marked env (leak checks), initializes, and returns the session. */
export async function startSession(args: readonly string[], env: Record<string, string> = {}, limits: { maxFrameBytes?: number } = {}): Promise<McpSession> {
  const transport = new BoundedStdioTransport({ command: process.execPath, args, env: markedEnv(env) }, limits);
  const client = new RawClient(transport);
  try {
    await client.start();
    await initialize(client, { deadline: new Deadline(CALL_BUDGET_MS, 'initialize') });
  } catch (error) {
    await transport.shutdown();
    throw new Error(`server did not start: ${(error as Error).message}\nstderr: ${transport.stderrTail}`, { cause: error });
  }
  return {
    call: async (name, callArgs = {}) =>
      (await client.request('tools/call', { name, arguments: callArgs }, new Deadline(CALL_BUDGET_MS, name))) as RawToolResult,
    listTools: async () => {
      const pages = await listAllTools(client, { deadline: new Deadline(CALL_BUDGET_MS, 'tools/list') });
      return pages.tools as Array<{ name: string } & Record<string, unknown>>;
    },
    close: () => transport.shutdown(),
    stderr: () => transport.stderrTail,
    noiseLines: () => transport.nonJsonLines.count,
  };
}

/** The text of a result's only text block, parsed as JSON. */
export function resultJson(result: RawToolResult): unknown {
  const text = result.content.find((block) => block.type === 'text')?.text;
  if (text === undefined) throw new Error(`result has no text block: ${JSON.stringify(result).slice(0, 500)}`);
  return JSON.parse(text) as unknown;
}
