import { McpctxError } from '../errors/index.js';
import { MCPCTX_CLIENT_INFO } from './_client-info.js';
import type { Deadline } from './_deadline.js';
import type { RawClient } from './_raw-client.js';

/** The version the measurement methodology requests unless told otherwise. */
export const DEFAULT_PROTOCOL_VERSION = '2025-11-25';
/** Versions of the legacy `initialize` handshake, newest first. */
export const KNOWN_PROTOCOL_VERSIONS = Object.freeze(['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07']);

/** Client capabilities a caller may declare by name (`--capabilities roots,elicitation`). */
export const DECLARABLE_CAPABILITIES = Object.freeze(['roots', 'elicitation', 'sampling'] as const);
export type DeclarableCapability = (typeof DECLARABLE_CAPABILITIES)[number];

export function clientCapabilitiesFor(names: readonly string[]): Record<string, Record<string, never>> {
  const capabilities: Record<string, Record<string, never>> = {};
  for (const name of names) {
    if (!(DECLARABLE_CAPABILITIES as readonly string[]).includes(name)) {
      throw new McpctxError('USAGE', `unknown client capability "${name}"; choose from ${DECLARABLE_CAPABILITIES.join(', ')}`, {
        capability: name,
      });
    }
    capabilities[name] = {};
  }
  return capabilities;
}

export interface InitializeOptions {
  protocolVersion?: string;
  capabilities?: Record<string, unknown>;
  clientInfo?: { name: string; version: string };
  deadline: Deadline;
}

export interface InitializeOutcome {
  requestedProtocolVersion: string;
  /** What the server answered, when it answered a string; absent otherwise (never the requested value). */
  negotiatedProtocolVersion?: string;
  serverInfo?: unknown;
  serverCapabilities?: unknown;
  instructions?: string;
  /** The `initialize` result exactly as parsed. */
  result: Record<string, unknown>;
}

/**
 * The legacy handshake: `initialize`, then `notifications/initialized`. A server that answers with
 * another version than requested is recorded as such and used anyway.
 */
export async function initialize(client: RawClient, options: InitializeOptions): Promise<InitializeOutcome> {
  const requestedProtocolVersion = options.protocolVersion ?? DEFAULT_PROTOCOL_VERSION;
  const raw = await client.request(
    'initialize',
    {
      protocolVersion: requestedProtocolVersion,
      capabilities: options.capabilities ?? {},
      clientInfo: options.clientInfo ?? { ...MCPCTX_CLIENT_INFO },
    },
    options.deadline,
  );
  const result = expectObject(raw, 'initialize');
  await client.notify('notifications/initialized', undefined, options.deadline);
  const outcome: InitializeOutcome = { requestedProtocolVersion, result };
  if (typeof result.protocolVersion === 'string') outcome.negotiatedProtocolVersion = result.protocolVersion;
  if (Object.hasOwn(result, 'serverInfo')) outcome.serverInfo = result.serverInfo;
  if (Object.hasOwn(result, 'capabilities')) outcome.serverCapabilities = result.capabilities;
  if (typeof result.instructions === 'string') outcome.instructions = result.instructions;
  return outcome;
}

export interface ListAllToolsOptions {
  deadline: Deadline;
  /** Most `tools/list` pages followed. Default 100. */
  maxPages?: number;
  /** Most tools accepted in all. Default 10,000. */
  maxTools?: number;
  /** Most bytes of tools/list responses accepted over all pages (the frames as received). Default 64 MiB. */
  maxTotalBytes?: number;
}

/** Default bound on the bytes of all tools/list pages together: far above any real catalog, far below what exhausts memory. */
export const DEFAULT_MAX_CATALOG_BYTES = 64 * 1024 * 1024;

export interface ToolPages {
  /** Every page's `tools` array concatenated in server order, each tool exactly as parsed. */
  tools: unknown[];
  pageCount: number;
}

/** Follows `nextCursor` until it is absent or null, within bounds; a repeated cursor is a loop. */
export async function listAllTools(client: RawClient, options: ListAllToolsOptions): Promise<ToolPages> {
  const maxPages = options.maxPages ?? 100;
  const maxTools = options.maxTools ?? 10_000;
  const maxTotalBytes = options.maxTotalBytes ?? DEFAULT_MAX_CATALOG_BYTES;
  let totalBytes = 0;
  const tools: unknown[] = [];
  const seenCursors = new Set<string>();
  let cursor: string | undefined;
  for (let page = 1; ; page += 1) {
    if (page > maxPages) {
      throw new McpctxError('TOO_MANY_PAGES', `tools/list still had more pages after ${maxPages}; the limit is ${maxPages} pages`, {
        limit: maxPages,
      });
    }
    const result = expectObject(
      await client.request('tools/list', cursor === undefined ? undefined : { cursor }, options.deadline),
      'tools/list',
    );
    // Each page is bounded by the frame limit; the pages together by this, before they pile up in memory.
    totalBytes += client.responseBytes(result) ?? Buffer.byteLength(JSON.stringify(result), 'utf8');
    if (totalBytes > maxTotalBytes) {
      throw new McpctxError(
        'CATALOG_TOO_LARGE',
        `tools/list pages passed ${maxTotalBytes} bytes in all (${totalBytes} after page ${page}); the limit is ${maxTotalBytes} bytes`,
        { limitBytes: maxTotalBytes, receivedBytes: totalBytes, page },
      );
    }
    if (!Array.isArray(result.tools)) {
      throw new McpctxError('PROTOCOL', 'the tools/list result has no tools array', { page });
    }
    tools.push(...(result.tools as unknown[]));
    if (tools.length > maxTools) {
      throw new McpctxError('TOO_MANY_TOOLS', `the server listed more than ${maxTools} tools; the limit is ${maxTools}`, {
        limit: maxTools,
      });
    }
    const next = result.nextCursor;
    if (next === undefined || next === null) return { tools, pageCount: page };
    if (typeof next !== 'string') {
      throw new McpctxError('PROTOCOL', `tools/list returned a nextCursor that is not a string (${JSON.stringify(next)})`, { page });
    }
    if (seenCursors.has(next)) {
      throw new McpctxError('CURSOR_LOOP', `tools/list returned cursor ${JSON.stringify(next)} a second time (page ${page}): a loop`, {
        cursor: next,
        page,
      });
    }
    seenCursors.add(next);
    cursor = next;
  }
}

function expectObject(value: unknown, method: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new McpctxError('PROTOCOL', `the ${method} result is not an object`, { method });
  }
  return value as Record<string, unknown>;
}
