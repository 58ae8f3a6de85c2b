// mcpctx measure --probe as users meet it: a table of the declarations and the tools that differ,
// --json for programs, sampling refused with why, flags that make no sense with a probe refused.
import { afterAll, describe, expect, it } from 'vitest';
import type { CapabilityProbe } from '../../src/measure/index.js';
import { markFlags, runCliCaptured } from '../support/cli-run.js';
import { SCRIPTED_SERVER, waitForNoMarkedProcesses } from '../support/processes.js';

const TEST_MS = 30_000;
const scripted = (mode: string): string[] => ['--', process.execPath, SCRIPTED_SERVER, mode];

afterAll(async () => {
  expect(await waitForNoMarkedProcesses()).toEqual([]);
});

describe('measure --probe', () => {
  it('shows the tool whose bytes change once elicitation is declared (the declined reply replaces -32601)', async () => {
    const run = await runCliCaptured(['measure', '--probe', 'elicitation', '--runs', '1', ...markFlags(), ...scripted('elicit-on-list')]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('capability probe (capability-probe/v1)');
    expect(run.stdout).toMatch(/nothing \(\{\}\)\s+measured\s+1\s/);
    expect(run.stdout).toMatch(/elicitation\s+elicitation_reply\s+tokens changed\s+\d+\s+\d+/);
  }, TEST_MS);

  it('--json gives the comparison; --probe repeats and takes comma lists', async () => {
    const run = await runCliCaptured(['measure', '--json', '--probe', 'roots', '--probe', 'elicitation,roots', '--runs', '1', ...markFlags(), ...scripted('normal')]);
    expect(run.code, run.stderr).toBe(0);
    const probe = JSON.parse(run.stdout) as CapabilityProbe;
    expect(probe.baseline.capabilities).toEqual({});
    expect(probe.probes.map((result) => [result.capability, result.declared.capabilities, result.tools, result.statusChanged, result.tokenDelta])).toEqual([
      ['roots', { roots: {} }, [], false, 0],
      ['elicitation', { elicitation: {} }, [], false, 0],
    ]);
  }, TEST_MS);

  it('says so when no declaration changes anything', async () => {
    const run = await runCliCaptured(['measure', '--probe', 'roots', '--runs', '1', ...markFlags(), ...scripted('normal')]);
    expect(run.stdout).toContain('no tool was added, removed or changed in tokens by any declaration');
  }, TEST_MS);

  it('refuses sampling with the reason, before launching anything', async () => {
    const run = await runCliCaptured(['measure', '--probe', 'roots,sampling', ...scripted('normal')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('sampling cannot be probed');
    expect(run.stderr).toContain('no model to ask');
  }, TEST_MS);

  it('refuses flags that do not fit a probe', async () => {
    const run = await runCliCaptured(['measure', '--probe', 'roots', '--capabilities', 'roots', '--out', 'x', ...scripted('normal')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('it does not take --capabilities, --out');
  }, TEST_MS);
});
