// Issue 31, case 6 as the official SDK client sees it: rules written for what common servers
// return. filesystem's directory_tree sends its tree as JSON text (stored as `{content: "<text>"}`
// in structuredContent); memory's search_nodes sends `{entities, relations}`, two arrays.
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { waitForNoMarkedProcesses } from '../../support/processes.js';
import { type PeerClient, sdkOverStdio } from './_clients.js';
import { type ToolResult, jsonOf } from './_offloaded.js';
import { peerWorkspace } from './_workspace.js';

/** The rules this file adds to the example's (keyed by the names the client sees). */
const TREE_RULE = { files__directory_tree: { project: ['name', 'type'] } };
/** The proposed key for a result with several arrays: which one, and which fields of its records. */
const SEARCH_RULE = { memory__search_nodes: { records: 'entities', project: ['name', 'entityType'], maxTokens: 4000 } };

/** The records of a shaped value: the value itself when it is a list, else its one `key` member. */
function recordsIn(value: unknown, key: string): unknown {
  if (Array.isArray(value)) return value;
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
}

describe('rules reach the data of the reference servers', () => {
  let peer: PeerClient | undefined;
  const call = async (name: string, args: Record<string, unknown>): Promise<ToolResult> => (await peer?.client.callTool({ name, arguments: args })) as ToolResult;

  afterEach(async () => {
    await peer?.close();
    peer = undefined;
  });

  afterAll(async () => {
    expect(await waitForNoMarkedProcesses(10_000)).toEqual([]);
  });

  // TODO(issue 31 item 6): flip to it() once rules read text that is JSON.
  it('case 6: a project rule on directory_tree picks name and type of each top-level entry of its JSON text', async () => {
    const workspace = peerWorkspace({ extraRules: TREE_RULE });
    peer = await sdkOverStdio(['--config', workspace.configFile]);
    await peer.client.listTools();
    const tree = await call('files__directory_tree', { path: workspace.treeDir });
    expect(tree.isError).not.toBe(true);
    const entries = recordsIn(jsonOf(tree), 'content') as Array<{ name: string }>;
    const byName = (a: { name: string }, b: { name: string }): number => a.name.localeCompare(b.name);
    expect([...entries].sort(byName)).toEqual([...workspace.treeTop].sort(byName));
  });

  // TODO(issue 31 item 6): flip to it() once a rule can choose one of several arrays (and say how in the docs).
  it('case 6: a project rule on search_nodes chooses `entities` and its fields; the projection fits, so nothing is offloaded', async () => {
    const workspace = peerWorkspace({ extraRules: SEARCH_RULE });
    peer = await sdkOverStdio(['--config', workspace.configFile]);
    await peer.client.listTools();
    const found = await call('memory__search_nodes', { query: 'entity-1' });
    expect(found.isError).not.toBe(true);
    // entity-1, entity-10 to entity-19 and entity-100 to entity-199: about 11,000 tokens as sent, over maxTokens.
    const expected = workspace.entities.filter((entity) => entity.name.startsWith('entity-1')).map(({ name, entityType }) => ({ name, entityType }));
    expect(expected).toHaveLength(111);
    const value = jsonOf(found);
    expect(value).not.toHaveProperty('handle');
    expect(recordsIn(value, 'entities')).toEqual(expected);
  });
});
