// The client answers what it declares, truthfully and by itself: a declared elicitation is declined
// (no person is there to ask), a declared sampling request is refused saying no model is attached;
// undeclared, both are -32601 as before.
import { afterAll, describe, expect, it } from 'vitest';
import { measureServer, type Measurement } from '../../src/measure/index.js';
import { SCRIPTED_SERVER, markedEnv, waitForNoMarkedProcesses } from '../support/processes.js';

const TEST_MS = 20_000;

function measure(mode: string, capabilities: string[]): Promise<Measurement> {
  return measureServer({
    name: mode,
    launch: { command: process.execPath, args: [SCRIPTED_SERVER, mode], env: markedEnv() },
    capabilities,
    runs: 1,
    timeoutMs: 15_000,
    transport: { exitGraceMs: 300, termGraceMs: 300 },
  });
}

/** The reply the server recorded, from the description of the tool it lists for that purpose. */
function recordedReply(m: Measurement, tool: string): unknown {
  const listed = (m.rawToolsCapture ?? []) as Array<{ name: string; description: string }>;
  return JSON.parse(listed.find((entry) => entry.name === tool)?.description ?? 'null');
}

afterAll(async () => {
  expect(await waitForNoMarkedProcesses()).toEqual([]);
});

describe('server requests the client answers by itself', () => {
  it('elicitation declared: elicitation/create during tools/list is declined', async () => {
    const m = await measure('elicit-on-list', ['elicitation']);
    expect(m.status).toBe('measured');
    expect(recordedReply(m, 'elicitation_reply')).toEqual({ jsonrpc: '2.0', id: 'srv-elicit', result: { action: 'decline' } });
  }, TEST_MS);

  it('elicitation not declared: -32601', async () => {
    const m = await measure('elicit-on-list', []);
    expect(recordedReply(m, 'elicitation_reply')).toMatchObject({ id: 'srv-elicit', error: { code: -32601 } });
  }, TEST_MS);

  it('sampling declared: refused with an error saying no model is attached, never a made-up completion', async () => {
    const m = await measure('client-requests', ['sampling']);
    const replies = recordedReply(m, 'client_replies') as Record<string, { error?: { code: number; message: string }; result?: unknown }>;
    expect(replies['srv-sampling']?.result).toBeUndefined();
    expect(replies['srv-sampling']?.error?.code).toBe(-1);
    expect(replies['srv-sampling']?.error?.message).toContain('no model is attached');
  }, TEST_MS);
});
