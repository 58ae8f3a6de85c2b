// An empty tools/list is measured as it came (zero tools), and the note says whether the server had
// declared a tools capability at initialize: a zero from a server that declared tools reads
// differently from one that never offered any.
import { afterAll, describe, expect, it } from 'vitest';
import { measureServer, measurementJson, type Measurement } from '../../src/measure/index.js';
import { SCRIPTED_SERVER, markedEnv, waitForNoMarkedProcesses } from '../support/processes.js';

const TEST_MS = 20_000;

function measure(mode: string): Promise<Measurement> {
  return measureServer({
    name: mode,
    launch: { command: process.execPath, args: [SCRIPTED_SERVER, mode], env: markedEnv() },
    timeoutMs: 15_000,
    transport: { exitGraceMs: 300, termGraceMs: 300 },
  });
}

afterAll(async () => {
  expect(await waitForNoMarkedProcesses()).toEqual([]);
});

describe('zero tools', () => {
  it('declared a tools capability and listed none', async () => {
    const m = await measure('empty-tools');
    expect([m.status, m.toolCount, m.totalTokens]).toEqual(['measured', 0, 1]);
    expect(m.note).toBe('2 captures agree; zero tools: the server declared a tools capability and listed none');
    expect(JSON.parse(measurementJson(m)).note).toBe(m.note);
  }, TEST_MS);

  it('declared no tools capability', async () => {
    const m = await measure('empty-tools-undeclared');
    expect([m.status, m.toolCount]).toEqual(['measured', 0]);
    expect(m.serverCapabilities).toEqual({});
    expect(m.note).toBe('2 captures agree; zero tools: the server declared no tools capability');
  }, TEST_MS);

  it('a catalog with tools gets no zero-tools note', async () => {
    const m = await measure('normal');
    expect(m.note).not.toContain('zero tools');
  }, TEST_MS);
});
