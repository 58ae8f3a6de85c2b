import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getEncoding } from 'js-tiktoken';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { measureServer, verifyMeasurement, type Measurement } from '../../src/measure/index.js';
import { waitForNoMarkedProcesses } from '../support/processes.js';
import { referenceServer } from '../support/real-servers.js';

// Figures measured on the raw wire with o200k_base (DESIGN.md, "Facts measured here").
const tiktoken = getEncoding('o200k_base');
const tiktokenCount = (text: string): number => tiktoken.encode(text, [], []).length;
let scratch = '';

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'mcpctx-real-'));
});

afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

function expectCrossChecked(measurement: Measurement): void {
  const capture = measurement.rawToolsCapture ?? [];
  expect(tiktokenCount(JSON.stringify(capture))).toBe(measurement.totalTokens);
  for (const [index, tool] of capture.entries()) {
    expect(tiktokenCount(JSON.stringify(tool))).toBe(measurement.perTool?.[index]?.tokens);
  }
  if (measurement.serverInstructions !== null) {
    expect(tiktokenCount(measurement.serverInstructions)).toBe(measurement.sessionStart?.instructionsTokens);
  }
}

describe('the pinned reference servers measure exactly', () => {
  it('server-everything: 13 tools, 1,708 tokens; instructions 312 tokens', async () => {
    const measurement = await measureServer({ name: 'everything', launch: referenceServer('everything'), runs: 2 });
    expect(measurement.status).toBe('measured');
    expect([measurement.toolCount, measurement.totalTokens]).toEqual([13, 1708]);
    expect(measurement.serverInstructions?.length).toBe(1575);
    expect(measurement.sessionStart?.instructionsTokens).toBe(312);
    expect(measurement.negotiatedProtocolVersion).toBe('2025-11-25');
    expectCrossChecked(measurement);
  });

  it('server-everything with roots and elicitation declared: 15 tools, 1,905 tokens', async () => {
    const measurement = await measureServer({
      name: 'everything-caps',
      launch: referenceServer('everything'),
      capabilities: ['roots', 'elicitation'],
      runs: 1,
    });
    expect(measurement.status).toBe('measured');
    expect(measurement.clientCapabilities).toEqual({ roots: {}, elicitation: {} });
    expect([measurement.toolCount, measurement.totalTokens]).toEqual([15, 1905]);
    expectCrossChecked(measurement);
  });

  it('server-filesystem: 14 tools, 2,823 tokens', async () => {
    const measurement = await measureServer({ name: 'filesystem', launch: referenceServer('filesystem', [scratch]), runs: 1 });
    expect(measurement.status).toBe('measured');
    expect([measurement.toolCount, measurement.totalTokens]).toEqual([14, 2823]);
    expectCrossChecked(measurement);
  });

  it('server-memory: 9 tools, 2,378 tokens', async () => {
    const launch = referenceServer('memory');
    launch.env = { ...launch.env, MEMORY_FILE_PATH: join(scratch, 'memory.jsonl') };
    const measurement = await measureServer({ name: 'memory', launch, runs: 1 });
    expect(measurement.status).toBe('measured');
    expect([measurement.toolCount, measurement.totalTokens]).toEqual([9, 2378]);
    expect(measurement.launch.envNames).toContain('MEMORY_FILE_PATH');
    expectCrossChecked(measurement);
  });

  it('server-memory with an env value that is also catalog text: still 2,378 tokens; the record redacts it and says so', async () => {
    // "entities" is in tool names (create_entities) and descriptions: redacting before counting
    // published 2,463 tokens. The figures are the server's; only the record is redacted.
    const launch = referenceServer('memory');
    launch.env = { ...launch.env, MEMORY_FILE_PATH: join(scratch, 'memory-hint.jsonl'), HINT: 'entities' };
    const measurement = await measureServer({ name: 'memory-hint', launch, runs: 1 });
    expect(measurement.status).toBe('measured');
    expect([measurement.toolCount, measurement.totalTokens]).toEqual([9, 2378]);
    expect(measurement.captureRedaction?.secrets).toEqual(['HINT']);
    expect(measurement.perTool?.map((tool) => tool.name)).toContain('create_[redacted:HINT]');
    expect(JSON.stringify(measurement.rawToolsCapture)).not.toContain('entities');
    const plain = await measureServer({ name: 'memory', launch: { ...launch, env: { ...launch.env, HINT: 'x' } }, runs: 1 });
    expect(measurement.perTool?.map((tool) => tool.tokens)).toEqual(plain.perTool?.map((tool) => tool.tokens));
    expect(verifyMeasurement(measurement)).toMatchObject({ ok: false, rederivable: false });
  });

  it('server-sequential-thinking: 1 tool, 1,003 tokens', async () => {
    const measurement = await measureServer({ name: 'sequential-thinking', launch: referenceServer('sequential-thinking'), runs: 1 });
    expect(measurement.status).toBe('measured');
    expect([measurement.toolCount, measurement.totalTokens]).toEqual([1, 1003]);
    expectCrossChecked(measurement);
  });

  it('leaves no server running', async () => {
    expect(await waitForNoMarkedProcesses()).toEqual([]);
  });
});
