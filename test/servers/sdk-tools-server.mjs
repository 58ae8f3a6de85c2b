#!/usr/bin/env node
// A small MCP server built on the SDK v2 (@modelcontextprotocol/server 2.4.0) whose tools are the
// same whatever carries them: run as a process it serves stdio; tests import createToolsServer()
// and serve it over streamable HTTP or the older HTTP+SSE (test/support/remote-servers.ts), so a
// measurement over each transport can be compared byte for byte.
import { fileURLToPath } from 'node:url';
import { McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod';

export function createToolsServer() {
  const server = new McpServer({ name: 'sdk-tools', version: '1.0.0' }, { instructions: 'Issue tools, served the same over every transport.' });
  server.registerTool(
    'search_issues',
    {
      description: 'Search issues by text; returns ids and titles, newest first.',
      inputSchema: z.object({
        query: z.string().describe('Words to find in titles and bodies'),
        limit: z.number().int().min(1).max(100).optional().describe('Most issues returned (default 20)'),
      }),
      outputSchema: z.object({ issues: z.array(z.object({ id: z.number(), title: z.string() })) }),
    },
    ({ query }) => ({ content: [{ type: 'text', text: `no issue matches ${query}` }], structuredContent: { issues: [] } }),
  );
  server.registerTool(
    'get_issue',
    { description: 'One issue with its comments.', inputSchema: z.object({ id: z.number().int().describe('The issue number') }) },
    ({ id }) => ({ content: [{ type: 'text', text: `issue ${id}` }] }),
  );
  server.registerTool('echo', { description: 'Echoes text back.', inputSchema: z.object({ text: z.string() }) }, ({ text }) => ({
    content: [{ type: 'text', text }],
  }));
  return server;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { StdioServerTransport } = await import('@modelcontextprotocol/server/stdio');
  await createToolsServer().connect(new StdioServerTransport());
}
