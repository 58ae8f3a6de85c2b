// The official SDK client (1.32.2) through mcp-remote 0.15.1, the stdio-to-HTTP relay clients use
// for remote servers, to the gateway's HTTP front (rules of examples/gateway/gateway.yaml, the
// reference servers behind it): the catalog as the rules shape it, what passes through, server
// requests relayed back through mcp-remote, and issue 31's cases 1 and 5.
import { pathToFileURL } from 'node:url';
import { CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForNoMarkedProcesses } from '../../support/processes.js';
import { gatewayOverHttp } from '../_gateway-process.js';
import { PEER_TIMEOUT_MS, type PeerClient, sdkThroughMcpRemote } from './_clients.js';
import { type ToolResult, previewOf, texts, walkOffloadedText } from './_offloaded.js';
import { type PeerWorkspace, peerWorkspace } from './_workspace.js';

describe('the SDK client through mcp-remote to the gateway over HTTP', () => {
  let workspace: PeerWorkspace;
  let gateway: Awaited<ReturnType<typeof gatewayOverHttp>> | undefined;
  let peer: PeerClient | undefined;
  const call = async (name: string, args: Record<string, unknown> = {}): Promise<ToolResult> => (await peer?.client.callTool({ name, arguments: args })) as ToolResult;

  beforeAll(async () => {
    workspace = peerWorkspace();
    gateway = await gatewayOverHttp(['--config', workspace.configFile]);
    peer = await sdkThroughMcpRemote(gateway.url, {
      capabilities: { sampling: {}, elicitation: {}, roots: { listChanged: true } },
      prepare: (client) => {
        client.setRequestHandler(CreateMessageRequestSchema, () => ({ model: 'test-model', role: 'assistant', content: { type: 'text', text: 'sampled through mcp-remote' } }));
        client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'accept', content: { name: 'Grace Hopper' } }));
        client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: [{ uri: pathToFileURL(workspace.dataDir).href, name: 'peer data' }] }));
      },
    });
  });

  afterAll(async () => {
    await peer?.close();
    await gateway?.stop();
    expect(await waitForNoMarkedProcesses(10_000)).toEqual([]);
  });

  it("lists the catalog as the example's rules make it: write tools denied, read_text_file's definition cut", async () => {
    const { tools } = await (peer as PeerClient).client.listTools();
    const names = tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['everything__echo', 'files__read_text_file', 'files__directory_tree', 'memory__read_graph']));
    for (const denied of ['files__write_file', 'files__edit_file', 'files__move_file', 'files__create_directory']) expect(names).not.toContain(denied);
    const readText = tools.find((tool) => tool.name === 'files__read_text_file');
    expect(readText).not.toHaveProperty('title');
    expect(readText).not.toHaveProperty('annotations');
  });

  it('passes results as they came: text, an image, structured content, an embedded resource', async () => {
    expect(await call('everything__echo', { message: 'through mcp-remote' })).toEqual({ content: [{ type: 'text', text: 'Echo: through mcp-remote' }] });
    expect((await call('everything__get-tiny-image')).content).toContainEqual({ type: 'image', data: expect.stringMatching(/^iVBORw0KGgo/), mimeType: 'image/png' });
    expect((await call('everything__get-structured-content', { location: 'New York' })).structuredContent).toEqual({
      temperature: expect.any(Number),
      conditions: expect.any(String),
      humidity: expect.any(Number),
    });
    expect((await call('everything__get-resource-reference', { resourceType: 'Text', resourceId: 4 })).content).toContainEqual({
      type: 'resource',
      resource: { uri: 'demo://resource/dynamic/text/4', mimeType: 'text/plain', text: expect.stringMatching(/^Resource 4: /) },
    });
    expect(await call('files__read_text_file', { path: `${workspace.treeDir}/notes.txt` })).toMatchObject({ structuredContent: { content: 'notes' } });
  });

  it("relays the server's requests to the client and back: sampling, elicitation", async () => {
    // everything registers these tools once it knows the client's capabilities: list until they are there.
    const deadline = Date.now() + PEER_TIMEOUT_MS;
    while (!(await (peer as PeerClient).client.listTools()).tools.some((tool) => tool.name === 'everything__trigger-elicitation-request')) {
      if (Date.now() > deadline) throw new Error('everything__trigger-elicitation-request was never listed');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(texts(await call('everything__trigger-sampling-request', { prompt: 'say hi', maxTokens: 10 })).join('\n')).toContain('sampled through mcp-remote');
    expect(texts(await call('everything__trigger-elicitation-request')).join('\n')).toContain('- Name: Grace Hopper');
  });

  // TODO(issue 31 item 1): flip to it() once shaped results agree with the listed outputSchema.
  it('case 1: a 1 MB read_text_file and a 600-entity read_graph, offloaded, reach the client as previews (no -32600)', async () => {
    await (peer as PeerClient).client.listTools();
    expect(previewOf(await call('files__read_text_file', { path: workspace.bigFile })).handle).toEqual(expect.any(String));
    expect(previewOf(await call('memory__read_graph')).handle).toEqual(expect.any(String));
  });

  // TODO(issue 31 items 1 and 5): flip to it() once offloaded text is walked by the preview's cursor.
  it('case 5: the offloaded 1 MB text is walked with read_result cursors to its last character', async () => {
    await (peer as PeerClient).client.listTools();
    const walk = await walkOffloadedText(call, previewOf(await call('files__read_text_file', { path: workspace.bigFile })));
    expect({ chars: walk.text.length, end: walk.text.slice(-40) }).toEqual({ chars: workspace.bigText.length, end: workspace.bigText.slice(-40) });
    expect(walk.text === workspace.bigText).toBe(true);
    expect(walk.contradictions).toEqual([]);
  });
});
