// The read_result server the Claude Code hook relies on: the hook runs once per call and exits, so
// what it keeps over the cap is read by this server, another process over the same folder and key.
import type { Readable, Writable } from 'node:stream';
import type { Server } from '@modelcontextprotocol/server';
import { lazyImport } from '../../lazy/index.js';
import type { HostShaper } from '../_host-shaper.js';

// Loaded when the server starts: the hook, which runs once per tool call, never pays for the SDK.
const serverSdk = lazyImport(() => import('@modelcontextprotocol/server'));
const stdioSdk = lazyImport(() => import('@modelcontextprotocol/server/stdio'));

/** The server's name in Claude Code's MCP config: its tool is `mcp__mcpctx-results__read_result`. */
export const RESULTS_SERVER_NAME = 'mcpctx-results';

/** A low-level MCP server offering the shaper's read_result, its definition as the gateway lists it. The caller connects a transport and owns the shaper. */
export async function createResultsServer(shaper: HostShaper, version = '0.0.0'): Promise<Server> {
  const { Server } = await serverSdk.load();
  const server = new Server(
    { name: RESULTS_SERVER_NAME, version },
    {
      capabilities: { tools: {} },
      instructions: 'Reads tool results that a hook kept because they were over a token cap or a page size: the preview the model got names the handle.',
    },
  );
  const tool = shaper.readResultTool;
  server.setRequestHandler('tools/list', () => ({ tools: [{ ...tool, annotations: { readOnlyHint: true, openWorldHint: false } }] as never }));
  server.setRequestHandler('tools/call', (request) => {
    const { name } = request.params;
    if (name !== tool.name) return { content: [{ type: 'text', text: `Unknown tool ${JSON.stringify(name)}: this server offers ${String(tool.name)} only.` }], isError: true };
    try {
      return shaper.readResult(request.params.arguments ?? {}).result as never;
    } catch (error) {
      // readResult throws only for a call that is not an object; anything else is answered in band.
      return { content: [{ type: 'text', text: (error as Error).message }], isError: true };
    }
  });
  return server;
}

/** Serves read_result over stdio until the client closes stdin. */
export async function serveResultsStdio(shaper: HostShaper, options: { version?: string; input?: Readable; output?: Writable; log?: (line: string) => void } = {}): Promise<void> {
  const server = await createResultsServer(shaper, options.version);
  const { StdioServerTransport } = await stdioSdk.load();
  const transport = new StdioServerTransport(options.input ?? process.stdin, options.output ?? process.stdout);
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve;
  });
  transport.onerror = (error) => options.log?.(`stdio: ${error.message}`);
  await server.connect(transport);
  await closed;
  await server.close();
}
