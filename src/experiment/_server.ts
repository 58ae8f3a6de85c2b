/**
 * One condition's MCP server for one question: started fresh (so no application cache carries
 * over from another question), its catalog listed, its tools called one at a time, every frame
 * kept byte-exact for the receipt.
 */
import { McpctxError } from '../errors/index.js';
import { Deadline, MCPCTX_CLIENT_INFO, ServerSession, listAllTools, redactArgs, passedEnvNames, type LaunchSpec } from '../mcp/index.js';
import type { ProviderTool } from '../providers/index.js';
import { canonicalJson, sha256Hex } from '../tokens/index.js';
import { isPlainObject } from '../json/index.js';
import type { Frame, ServerRecord } from './_types.js';

export interface ToolCallOutcome {
  /** JSON-RPC id of the tools/call request. */
  rpcId: number | string | null;
  /** The tools/call result as parsed. */
  result: Record<string, unknown>;
}

/** sha256 over `${direction} ${text}\n` of every frame, in order (what verify recomputes). */
export function framesSha256(frames: readonly Frame[]): string {
  return sha256Hex(frames.map((frame) => `${frame.direction} ${frame.text}\n`).join(''));
}

export class ConditionServer {
  readonly record: ServerRecord;
  private readonly session: ServerSession;
  private readonly timeoutMs: number;

  private constructor(session: ServerSession, record: ServerRecord, timeoutMs: number) {
    this.session = session;
    this.record = record;
    this.timeoutMs = timeoutMs;
  }

  /**
   * Starts the server, initializes, lists every catalog page, and keeps the tools `offered` names
   * (in that order; all the server lists when absent). A name the server does not list is
   * PROTOCOL: the condition cannot offer what its server lacks. The server is closed on failure.
   */
  static async open(launch: LaunchSpec, offered: readonly string[] | undefined, timeoutMs: number): Promise<ConditionServer> {
    const frames: Frame[] = [];
    const session = new ServerSession({
      launch,
      clientInfo: MCPCTX_CLIENT_INFO,
      transport: { onFrame: (direction, text) => frames.push({ direction, text }) },
    });
    try {
      const handshake = await session.open(new Deadline(timeoutMs, 'starting the server and its initialize handshake'));
      const listed = await listAllTools(session.client, { deadline: new Deadline(timeoutMs, 'listing the server\u2019s tools') });
      const tools = chooseTools(listed.tools, offered);
      const record: ServerRecord = {
        launch: { command: launch.command, args: redactArgs(launch.args ?? []).args, envNames: passedEnvNames(launch) },
        protocolVersion: handshake.negotiatedProtocolVersion ?? handshake.requestedProtocolVersion,
        serverInfo: handshake.serverInfo ?? null,
        tools,
        toolsSha256: sha256Hex(canonicalJson(tools)),
        frames,
        framesSha256: '',
      };
      return new ConditionServer(session, record, timeoutMs);
    } catch (error) {
      await session.close();
      throw error;
    }
  }

  /** Calls one tool; resolves with the result and the request's JSON-RPC id. RPC_ERROR, DEADLINE, TRANSPORT_CLOSED reject. */
  async call(name: string, args: unknown): Promise<ToolCallOutcome> {
    const before = this.record.frames.length;
    const result = await this.session.request('tools/call', { name, arguments: args }, new Deadline(this.timeoutMs, `the tools/call of ${name}`));
    if (!isPlainObject(result)) throw new McpctxError('PROTOCOL', `the tools/call result of ${name} is not an object`);
    return { rpcId: sentCallId(this.record.frames.slice(before)), result };
  }

  /** Ends the server and seals the frame hash. Idempotent. */
  async close(): Promise<void> {
    await this.session.close();
    this.record.framesSha256 = framesSha256(this.record.frames);
  }
}

function chooseTools(listed: readonly unknown[], offered: readonly string[] | undefined): ProviderTool[] {
  const byName = new Map<string, ProviderTool>();
  for (const tool of listed) {
    if (!isPlainObject(tool) || typeof tool.name !== 'string') continue;
    const inputSchema = isPlainObject(tool.inputSchema) ? tool.inputSchema : { type: 'object' };
    byName.set(tool.name, {
      name: tool.name,
      ...(typeof tool.description === 'string' ? { description: tool.description } : {}),
      inputSchema,
    });
  }
  if (offered === undefined) return [...byName.values()];
  const missing = offered.filter((name) => !byName.has(name));
  if (missing.length > 0) {
    throw new McpctxError('PROTOCOL', `the server does not list ${missing.join(', ')}; it lists ${[...byName.keys()].join(', ') || 'no tools'}`, {
      missing,
    });
  }
  return offered.map((name) => byName.get(name) as ProviderTool);
}

/** The id of the tools/call request among the frames written since the call began (calls are one at a time). */
function sentCallId(frames: readonly Frame[]): number | string | null {
  for (const frame of frames) {
    if (frame.direction !== 'sent') continue;
    const message = JSON.parse(frame.text) as { method?: unknown; id?: unknown };
    if (message.method === 'tools/call' && (typeof message.id === 'number' || typeof message.id === 'string')) return message.id;
  }
  return null;
}
