// Each distinct launch is measured once, whichever configs hold it; entries that cannot be
// launched as written say why and start nothing; a remote entry is reached without its headers.
import { describe, expect, it } from 'vitest';
import { launchKey, measureEntries, whyNotLaunched } from '../../src/audit/_measure-entries.js';
import type { ConfigEntry } from '../../src/audit/_types.js';
import type { MeasureOptions, Measurement } from '../../src/measure/index.js';
import { configEntry } from './_config-entry.js';

function entry(overrides: Partial<ConfigEntry>): ConfigEntry {
  return configEntry('srv', { client: 'cursor', path: '/home/u/.cursor/mcp.json', args: ['server.js'], ...overrides });
}

function fakeMeasure(calls: MeasureOptions[]): (options: MeasureOptions) => Promise<Measurement> {
  return (options) => {
    calls.push(options);
    return Promise.resolve({ name: options.name, status: 'measured', totalTokens: 100 } as Measurement);
  };
}

describe('measureEntries', () => {
  it('launches the same server configured for two clients once, and two launches differing only in an env value twice', async () => {
    const calls: MeasureOptions[] = [];
    const a = entry({ name: 'fs', client: 'cursor', launchEnv: { TOKEN: 'one' }, envNames: ['TOKEN'] });
    const b = entry({ name: 'files', client: 'claude-code', path: '/home/u/.claude.json', launchEnv: { TOKEN: 'one' }, envNames: ['TOKEN'] });
    const c = entry({ name: 'fs2', launchEnv: { TOKEN: 'two' }, envNames: ['TOKEN'] });
    const results = await measureEntries([a, b, c], { measureWith: fakeMeasure(calls) });
    expect(calls).toHaveLength(2);
    expect(launchKey(a)).toBe(launchKey(b));
    expect(launchKey(a)).not.toBe(launchKey(c));
    expect(results.get(launchKey(b))?.name).toBe('fs');
    // The key is a hash: an env value never appears in it.
    expect(launchKey(a)).not.toContain('one');
  });

  it('starts nothing for disabled, builtin, broken or unevaluated entries, and says why', async () => {
    const calls: MeasureOptions[] = [];
    const entries = [
      entry({ name: 'off', disabled: true }),
      entry({ name: 'dev', transport: 'builtin', command: undefined }),
      entry({ name: 'broken', command: undefined, problem: 'neither command nor url' }),
      entry({ name: 'expanded', command: '${HOME}/bin/server', expansions: [{ where: 'command', variables: ['HOME'] }] }),
      entry({ name: 'remote-expanded', transport: 'remote', command: undefined, url: 'https://${HOST}/mcp', expansions: [{ where: 'url', variables: ['HOST'] }] }),
    ];
    await measureEntries(entries, { measureWith: fakeMeasure(calls) });
    expect(calls).toEqual([]);
    expect(entries.map((item) => whyNotLaunched(item)?.reason)).toEqual(['disabled', 'builtin', 'problem', 'unevaluated-expansion', 'unevaluated-expansion']);
  });

  it('launches an entry whose only expansion is in an env value, without that variable', async () => {
    const calls: MeasureOptions[] = [];
    const withExpansion = entry({ envNames: ['API_KEY', 'MODE'], launchEnv: { MODE: 'ro' }, expansions: [{ where: 'env.API_KEY', variables: ['API_KEY'] }] });
    await measureEntries([withExpansion], { measureWith: fakeMeasure(calls) });
    expect(calls).toHaveLength(1);
    expect(calls[0]?.launch).toEqual({ command: 'node', args: ['server.js'], env: { MODE: 'ro' } });
  });

  it('reaches a url entry without its headers, keeping a stated transport', async () => {
    const calls: MeasureOptions[] = [];
    await measureEntries(
      [
        entry({ name: 'wall', transport: 'remote', command: undefined, url: 'https://mcp.example.test/mcp', headerNames: ['Authorization'] }),
        entry({ name: 'sse', transport: 'remote', command: undefined, url: 'https://sse.example.test/sse', remoteType: 'sse' }),
        entry({ name: 'goose', transport: 'remote', command: undefined, url: 'https://goose.example.test/mcp', remoteType: 'streamable_http' }),
      ],
      { measureWith: fakeMeasure(calls) },
    );
    expect(calls.map((call) => call.launch)).toEqual([
      { url: 'https://mcp.example.test/mcp' },
      { url: 'https://sse.example.test/sse', transport: 'sse' },
      { url: 'https://goose.example.test/mcp', transport: 'streamable-http' },
    ]);
  });

  it('reports progress once per launch and bounds how many run at once', async () => {
    let running = 0;
    let most = 0;
    const progress: string[] = [];
    const entries = Array.from({ length: 5 }, (_, i) => entry({ name: `s${i}`, args: [`s${i}.js`] }));
    await measureEntries(entries, {
      concurrency: 2,
      onMeasured: (done, total) => progress.push(`${done}/${total}`),
      measureWith: async (options) => {
        running += 1;
        most = Math.max(most, running);
        await new Promise((resolve) => setImmediate(resolve));
        running -= 1;
        return { name: options.name, status: 'measured' } as Measurement;
      },
    });
    expect(most).toBe(2);
    expect(progress).toEqual(['1/5', '2/5', '3/5', '4/5', '5/5']);
  });
});
