// The launch record holds what the figure depends on: a server started in two folders gives two
// figures, and each record names its folder, relative to the servers file's folder (or the
// caller's) when inside it, so no home path is published; absolute only when outside it.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadServersFile, measureServer, measurementJson, recordedLaunch, verifyMeasurement, type RecordedStdioLaunch } from '../../src/measure/index.js';
import { SCRIPTED_SERVER, markedEnv, waitForNoMarkedProcesses } from '../support/processes.js';

let scratch = '';
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'mcpctx-cwd-'));
  await mkdir(join(scratch, 'examples', 'deeper'), { recursive: true });
});
afterAll(async () => {
  expect(await waitForNoMarkedProcesses(10_000)).toEqual([]);
  await rm(scratch, { recursive: true, force: true });
});

describe('launch.cwd', () => {
  it('two cwds of one server from a servers file: two figures, two records each naming its folder relative to the file', async () => {
    const outside = await mkdtemp(join(tmpdir(), 'mcpctx-cwd-outside-'));
    try {
      const entries = [
        { name: 'here', command: process.execPath, args: [SCRIPTED_SERVER, 'cwd-in-catalog'], env: markedEnv() },
        { name: 'in-examples', command: process.execPath, args: [SCRIPTED_SERVER, 'cwd-in-catalog'], env: markedEnv(), cwd: 'examples/deeper' },
        { name: 'elsewhere', command: process.execPath, args: [SCRIPTED_SERVER, 'cwd-in-catalog'], env: markedEnv(), cwd: outside },
      ];
      const file = join(scratch, 'servers.json');
      await writeFile(file, JSON.stringify(entries));
      const { servers } = await loadServersFile(file);
      const [here, inExamples, elsewhere] = await Promise.all(servers.map((entry) => measureServer({ ...entry, runs: 1, timeoutMs: 20_000 })));
      for (const m of [here, inExamples, elsewhere]) expect(m?.status, m?.note).toBe('measured');
      expect((here?.launch as RecordedStdioLaunch).cwd).toBe('.');
      expect((inExamples?.launch as RecordedStdioLaunch).cwd).toBe('examples/deeper');
      expect((elsewhere?.launch as RecordedStdioLaunch).cwd).toBe(outside);
      // The figure moves with the folder, and the record says why.
      expect(inExamples?.totalTokens).not.toBe(here?.totalTokens);
      expect(JSON.stringify(inExamples?.rawToolsCapture)).toContain(join(scratch, 'examples', 'deeper'));
      expect(verifyMeasurement(JSON.parse(measurementJson(inExamples!))).ok).toBe(true);
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  }, 60_000);

  it('is relative to the base when inside it, absolute outside, and absent for a url', () => {
    const cwdOf = (cwd: string | undefined): string | undefined => recordedLaunch({ command: 'node', args: ['s.js'], ...(cwd === undefined ? {} : { cwd }) }, { cwdBase: '/srv/mcp' }).cwd;
    expect(cwdOf('/srv/mcp/examples')).toBe('examples');
    expect(cwdOf('/srv/mcp/examples/deeper')).toBe('examples/deeper');
    expect(cwdOf('/srv/mcp')).toBe('.');
    expect(cwdOf(undefined)).toBe('.');
    expect(cwdOf('/srv/mcp/..foo')).toBe('..foo');
    expect(cwdOf('/home/alice/project')).toBe('/home/alice/project');
    expect(cwdOf('/srv')).toBe('/srv');
    expect(recordedLaunch({ url: 'https://mcp.example/mcp' })).not.toHaveProperty('cwd');
  });
});
