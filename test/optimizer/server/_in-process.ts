// An optimizer server in this process over an in-memory transport, for tests that need the store
// or the server's internals at hand (a counting store, a generated 10k-record session).
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { Deadline, RawClient, initialize } from '../../../src/mcp/index.js';
import type { RecordStore } from '../../../src/optimizer/index.js';
import { createOptimizerServer } from '../../../src/optimizer/server/index.js';
import type { ContextSummary } from '../../../src/optimizer/server/_server-tools.js';
import { countTokens } from '../../../src/tokens/index.js';
import { expect } from 'vitest';

export interface ToolResult {
  content: Array<{ type: string; text?: string }>;
  isError?: boolean;
}

export interface InProcessServer {
  call(name: string, args: Record<string, unknown>, budgetMs?: number): Promise<ToolResult>;
  close(): Promise<void>;
}

export async function startInProcess(store: RecordStore): Promise<InProcessServer> {
  const server = createOptimizerServer({ store });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new RawClient(clientSide);
  await client.start();
  await initialize(client, { deadline: new Deadline(10_000, 'initialize') });
  return {
    call: async (name, args, budgetMs = 120_000) => (await client.request('tools/call', { name, arguments: args }, new Deadline(budgetMs, name))) as ToolResult,
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

export function answerText(result: ToolResult): string {
  if (result.isError === true) throw new Error(`tool refused: ${result.content[0]?.text ?? ''}`);
  return result.content[0]?.text ?? '';
}

/**
 * build_context's default answer: the context as a text block of its own, then the rest as JSON.
 * Read back into one ContextSummary, with what the whole answer costs.
 */
export function summaryOf(result: ToolResult): ContextSummary & { answerTokens: number } {
  if (result.isError === true) throw new Error(`tool refused: ${result.content[0]?.text ?? ''}`);
  expect(result.content).toHaveLength(2);
  const context = result.content[0]?.text ?? '';
  const rest = result.content[1]?.text ?? '';
  return { context, ...(JSON.parse(rest) as Omit<ContextSummary, 'context'>), answerTokens: countTokens(context) + countTokens(rest) };
}

