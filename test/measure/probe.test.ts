// The capability probe: the reference everything server measured declaring nothing, then declaring
// roots alone and elicitation alone, gains exactly the tool each unlocks; the default measurement
// still declares nothing and its canonical hash is the published one.
import { afterAll, describe, expect, it } from 'vitest';
import { checkProbeCapabilities, measureServer, probeCapabilities, toolDifferences } from '../../src/measure/index.js';
import { waitForNoMarkedProcesses } from '../support/processes.js';
import { referenceServer } from '../support/real-servers.js';

/** server-everything 2026.8.31, declaring nothing: the catalog published (13 tools, 1,708 tokens). */
const EVERYTHING_SHA256 = 'e61b2e1761ff2f931d030faf1dc192ca70247e52ff31d8633431b69ba6e00b7e';
const TEST_MS = 60_000;

afterAll(async () => {
  expect(await waitForNoMarkedProcesses()).toEqual([]);
});

describe('probeCapabilities on server-everything', () => {
  it('roots adds get-roots-list, elicitation adds trigger-elicitation-request; nothing removed, no status change', async () => {
    const probe = await probeCapabilities({ name: 'everything', launch: referenceServer('everything'), runs: 1, probe: ['roots', 'elicitation'] });
    expect(probe.method).toBe('capability-probe/v1');
    expect(probe.baseline).toMatchObject({ capabilities: {}, status: 'measured', toolCount: 13, totalTokens: 1708, canonicalSha256: EVERYTHING_SHA256 });
    const [roots, elicitation] = probe.probes;
    expect(roots).toMatchObject({ capability: 'roots', statusChanged: false, tokenDelta: 103, declared: { capabilities: { roots: {} }, toolCount: 14, totalTokens: 1811 } });
    expect(roots?.tools).toEqual([{ name: 'get-roots-list', change: 'added', tokensWithout: null, tokensWith: 103 }]);
    expect(elicitation).toMatchObject({ capability: 'elicitation', statusChanged: false, tokenDelta: 94, declared: { capabilities: { elicitation: {} }, toolCount: 14 } });
    expect(elicitation?.tools).toEqual([{ name: 'trigger-elicitation-request', change: 'added', tokensWithout: null, tokensWith: 94 }]);
  }, TEST_MS);

  it('a normal measurement still declares nothing: the published hash is unchanged', async () => {
    const m = await measureServer({ name: 'everything', launch: referenceServer('everything'), runs: 1 });
    expect(m.clientCapabilities).toEqual({});
    expect(m.canonicalSha256).toBe(EVERYTHING_SHA256);
  }, TEST_MS);
});

describe('the probe list', () => {
  it('refuses sampling and says why; drops repeats; refuses unknown names and an empty list', () => {
    expect(() => checkProbeCapabilities(['sampling'])).toThrow(/no model to ask/);
    expect(checkProbeCapabilities(['roots', 'elicitation', 'roots'])).toEqual(['roots', 'elicitation']);
    expect(() => checkProbeCapabilities(['tasks'])).toThrow(/unknown capability to probe "tasks"/);
    expect(() => checkProbeCapabilities([])).toThrow(/name a capability/);
  });
});

describe('toolDifferences', () => {
  const tool = (name: string, tokens: number) => ({ name, tokens, descriptionTokens: 0, inputSchemaTokens: 0 });
  it('names tools added, removed and changed in tokens; repeated names pair in order', () => {
    const without = { perTool: [tool('a', 10), tool('b', 20), tool('dup', 5), tool('dup', 6)] };
    const withIt = { perTool: [tool('a', 10), tool('c', 7), tool('dup', 5), tool('b', 25)] };
    expect(toolDifferences(without, withIt)).toEqual([
      { name: 'c', change: 'added', tokensWithout: null, tokensWith: 7 },
      { name: 'b', change: 'tokens', tokensWithout: 20, tokensWith: 25 },
      { name: 'dup', change: 'removed', tokensWithout: 6, tokensWith: null },
    ]);
    expect(toolDifferences({ perTool: null }, withIt)).toHaveLength(4);
    expect(toolDifferences(without, { perTool: null })).toHaveLength(4);
  });
});
