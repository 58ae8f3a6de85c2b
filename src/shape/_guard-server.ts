import type { McpServer, RegisteredTool } from '@modelcontextprotocol/server';
import { McpctxError } from '../errors/index.js';
import { guardToolResult, type ResultGuardOptions, type ResultRefusal } from './_guard.js';

type ToolHandler = RegisteredTool['handler'];
type ToolUpdate = Parameters<RegisteredTool['update']>[0];

/** One line per refused result, for a server's log. */
export interface GuardLogEntry {
  readonly tool: string;
  /** The tokens the result would have sent; a lower bound when `exact` is false. */
  readonly tokens: number;
  readonly exact: boolean;
  /** The cap it passed. */
  readonly maxTokens: number;
  readonly binaryBytes: number;
  readonly maxBinaryBytes: number;
}

export interface ServerGuardOptions extends Omit<ResultGuardOptions, 'onRefusal'> {
  /** Per-tool changes to the options above (a higher cap for one tool, its own remedy), by tool name. */
  readonly tools?: Readonly<Record<string, Partial<Omit<ResultGuardOptions, 'onRefusal'>>>>;
  /**
   * Receives every refusal. Default: one line to `log` (the same log unexpected errors go to),
   * else to stderr, never stdout, which a stdio server's protocol owns.
   */
  readonly onRefusal?: (entry: GuardLogEntry) => void;
}

/** What `guardServer` did, and its undo. */
export interface ServerGuard {
  /** The names of the tools whose results are guarded now (registered before or after the guard). */
  guardedTools(): string[];
  /** Puts every handler back as it was registered and stops guarding new registrations. */
  unguard(): void;
}

/** The part of `McpServer` the guard relies on, checked at run time so an SDK that changed it fails loudly. */
interface ToolTable {
  readonly _registeredTools: Record<string, RegisteredTool>;
}

/**
 * One ceiling for every tool of an SDK v2 `McpServer`, including the tools nobody re-shaped yet:
 * each tool registered before this call, each one registered after it, and each callback swapped
 * in later with `update({ callback })` has its results guarded as `guardToolResult` does, with
 * `tools[name]` overriding the options for that tool. Every refusal goes to `onRefusal` with the
 * tool, its size and the cap. It wraps handlers through the SDK's own `RegisteredTool.update`, so
 * the SDK still validates input, skips output validation for the refusal (an isError result) and
 * projects the result for the wire as it does for any handler's.
 */
export function guardServer(server: McpServer, options: ServerGuardOptions): ServerGuard {
  const table = toolTableOf(server);
  const { tools: perTool, onRefusal, ...base } = options;
  const log = onRefusal ?? ((entry: GuardLogEntry) => (base.log ?? ((line: string) => console.error(line)))(refusalLine(entry)));
  // Build every tool's options now, so a bad cap fails here and not at the first call.
  const optionsFor = (name: string): ResultGuardOptions => {
    const override = perTool !== undefined && Object.hasOwn(perTool, name) ? perTool[name] : undefined;
    return { ...base, ...override, onRefusal: (refusal: ResultRefusal) => log(logEntryOf(refusal)) };
  };
  guardToolResult('check', () => ({}), base);
  if (perTool !== undefined) for (const name of Object.keys(perTool)) guardToolResult(name, () => ({}), optionsFor(name));

  /** Each guarded tool object, with what undoes it. */
  const wrapped = new Map<RegisteredTool, { original: ToolHandler; update: RegisteredTool['update'] }>();
  const nameOf = (tool: RegisteredTool): string | undefined => Object.keys(table._registeredTools).find((name) => table._registeredTools[name] === tool);
  const guardHandler = (tool: RegisteredTool, handler: ToolHandler): ToolHandler => {
    const guarded = async (...args: unknown[]): Promise<unknown> => {
      // The name at call time: update({ name }) renames a tool in place.
      const name = nameOf(tool) ?? 'unknown tool';
      return guardToolResult(name, (...inner: unknown[]) => (handler as (...a: unknown[]) => unknown)(...inner) as never, optionsFor(name))(...args);
    };
    return guarded as unknown as ToolHandler;
  };
  const guardTool = (tool: RegisteredTool): void => {
    if (wrapped.has(tool)) return;
    const original = tool.handler;
    const update = tool.update;
    wrapped.set(tool, { original, update });
    // A callback swapped in later is guarded too; the SDK's update regenerates the executor.
    tool.update = (updates: ToolUpdate): void => {
      if (updates.callback === undefined) return update(updates);
      const entry = wrapped.get(tool);
      if (entry !== undefined) entry.original = updates.callback as ToolHandler;
      update({ ...updates, callback: guardHandler(tool, updates.callback as ToolHandler) as never });
    };
    update({ callback: guardHandler(tool, original) as never });
  };

  for (const name of Object.keys(table._registeredTools)) guardTool(checkedTool(table._registeredTools[name], name));
  const registerTool = server.registerTool;
  // An own property over the prototype's method: tools registered from now on are guarded as they arrive.
  server.registerTool = function guardedRegisterTool(this: McpServer, ...args: Parameters<McpServer['registerTool']>): RegisteredTool {
    const tool = (registerTool as (...a: unknown[]) => RegisteredTool).apply(server, args);
    guardTool(checkedTool(tool, String(args[0])));
    return tool;
  } as McpServer['registerTool'];

  return {
    guardedTools: () => [...wrapped.keys()].map(nameOf).filter((name): name is string => name !== undefined),
    unguard: () => {
      if (Object.hasOwn(server, 'registerTool')) delete (server as { registerTool?: unknown }).registerTool;
      for (const [tool, { original, update }] of wrapped) {
        tool.update = update;
        update({ callback: original as never });
      }
      wrapped.clear();
    },
  };
}

function toolTableOf(server: McpServer): ToolTable {
  const table = (server as unknown as Partial<ToolTable>)._registeredTools;
  if (typeof server.registerTool !== 'function' || typeof table !== 'object' || table === null) {
    throw new McpctxError(
      'INVALID_ARGUMENT',
      'guardServer needs an McpServer of @modelcontextprotocol/server 2.x (registerTool and its table of registered tools); this object has neither, so its tools cannot be guarded.',
    );
  }
  return { _registeredTools: table };
}

function checkedTool(tool: RegisteredTool | undefined, name: string): RegisteredTool {
  if (tool === undefined || typeof tool.update !== 'function' || typeof tool.handler !== 'function') {
    throw new McpctxError(
      'INVALID_ARGUMENT',
      `guardServer cannot guard tool "${name}": the SDK's registered tool has no handler and update(), so this SDK version is not one the guard knows.`,
    );
  }
  return tool;
}

function logEntryOf(refusal: ResultRefusal): GuardLogEntry {
  return {
    tool: refusal.tool,
    tokens: refusal.tokens,
    exact: refusal.exact,
    maxTokens: refusal.maxTokens,
    binaryBytes: refusal.binaryBytes,
    maxBinaryBytes: refusal.maxBinaryBytes,
  };
}

function refusalLine(entry: GuardLogEntry): string {
  const size = `${entry.exact ? '' : 'more than '}${entry.tokens} tokens (cap ${entry.maxTokens})`;
  const binary = entry.binaryBytes > entry.maxBinaryBytes ? `, ${entry.binaryBytes} binary bytes (cap ${entry.maxBinaryBytes})` : '';
  return `mcpctx guard: refused tool "${entry.tool}": ${size}${binary}`;
}
