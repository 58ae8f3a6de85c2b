// measurement.json on disk: written whole or not at all, and never over another server's result.
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isMcpctxError } from '../../src/errors/index.js';
import { checkMeasurementTarget, measurementJson, writeMeasurement, type Measurement } from '../../src/measure/index.js';

let scratch = '';
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'mcpctx-files-'));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

function measurement(name: string, command: string, args: string[]): Measurement {
  return {
    methodology: 'mcpctx-catalog/v1',
    name,
    status: 'timeout',
    note: 'no answer',
    totalTokens: null,
    toolCount: null,
    canonicalSha256: null,
    canonicalBytes: null,
    rawToolsCapture: null,
    captureRedaction: null,
    perTool: null,
    sessionStart: null,
    serverInstructions: null,
    serverInfo: null,
    serverCapabilities: null,
    clientCapabilities: {},
    requestedProtocolVersion: '2025-11-25',
    launch: { command, args, argsRedacted: 0, envNames: [] },
    isolation: { mode: 'minimal-env', platform: 'linux', arch: 'x64', node: 'v20' },
    tokenizer: { name: 'gpt-tokenizer', version: '4.0.0', encoding: 'o200k_base' },
    measuredAt: '2026-01-01T00:00:00.000Z',
    timings: { startMs: 0, initializeMs: 0, listMs: 0, countMs: 0, closeMs: 0, totalMs: 0, elapsedMs: 0 },
    attempts: [],
  };
}

describe('writeMeasurement', () => {
  it('writes the file whole and leaves no temporary file beside it', async () => {
    const out = join(scratch, 'whole');
    const file = await writeMeasurement(out, measurement('mcp', 'npx', ['-y', '@eslint/mcp']));
    expect(file).toBe(join(out, 'mcp', 'measurement.json'));
    expect(await readFile(file, 'utf8')).toBe(measurementJson(measurement('mcp', 'npx', ['-y', '@eslint/mcp'])));
    expect(await readdir(join(out, 'mcp'))).toEqual(['measurement.json']);
  });

  it('tells remote servers apart by URL: the same URL is replaced, another URL or a command refused', async () => {
    const out = join(scratch, 'remote');
    const remote = (url: string): Measurement => ({ ...measurement('r', 'unused', []), launch: { url, headerNames: [], envNames: [] } });
    await writeMeasurement(out, remote('https://a.example/mcp'));
    const file = await writeMeasurement(out, { ...remote('https://a.example/mcp'), note: 'again' });
    expect(JSON.parse(await readFile(file, 'utf8'))).toMatchObject({ note: 'again' });
    const other = await writeMeasurement(out, remote('https://b.example/mcp')).catch((error: unknown) => error);
    expect(isMcpctxError(other, 'OUTPUT_CONFLICT')).toBe(true);
    expect((other as Error).message).toContain('https://a.example/mcp');
    const command = await checkMeasurementTarget(out, 'r', { command: 'node', args: [] }).catch((error: unknown) => error);
    expect(isMcpctxError(command, 'OUTPUT_CONFLICT')).toBe(true);
  });

  it('replaces the measurement of the same launch, credentials compared as withheld', async () => {
    const out = join(scratch, 'same');
    await writeMeasurement(out, measurement('s', 'node', ['server.js', '--token', 'first-token']));
    const again = { ...measurement('s', 'node', ['server.js', '--token', '[redacted]']), note: 'second' };
    const file = await writeMeasurement(out, again);
    expect(JSON.parse(await readFile(file, 'utf8'))).toMatchObject({ note: 'second' });
  });

  it('refuses to replace the measurement of another launch under the same name, and keeps it', async () => {
    const out = join(scratch, 'clash');
    const file = await writeMeasurement(out, measurement('mcp', 'npx', ['-y', '@eslint/mcp']));
    const before = await readFile(file, 'utf8');
    const error = await writeMeasurement(out, measurement('mcp', 'npx', ['-y', '@playwright/mcp'])).catch((caught: unknown) => caught);
    expect(isMcpctxError(error, 'OUTPUT_CONFLICT')).toBe(true);
    expect((error as Error).message).toContain('holds a measurement of another server (npx -y @eslint/mcp)');
    expect((error as Error).message).toContain('--name');
    expect(await readFile(file, 'utf8')).toBe(before);
  });

  it('refuses to replace a file that is not a measurement', async () => {
    const out = join(scratch, 'foreign');
    await mkdir(join(out, 'notes'), { recursive: true });
    await writeFile(join(out, 'notes', 'measurement.json'), 'my own notes\n');
    const error = await checkMeasurementTarget(out, 'notes', { command: 'node', args: [] }).catch((caught: unknown) => caught);
    expect(isMcpctxError(error, 'OUTPUT_CONFLICT')).toBe(true);
    expect((error as Error).message).toContain('holds something that is not a measurement');
  });
});
