// cost-regression/v1 tells the truth about a movement: where the tokens went, by tool and by field;
// what changed in the launch or the server's version; a fall to a failure listed first as the worst
// movement; a return from a failure listed; vectors written before the output schema was kept say so.
import { describe, expect, it } from 'vitest';
import type { Measurement } from '../../../src/measure/index.js';
import type { ResultsState } from '../../../src/results/index.js';
import { REGRESSIONS_JSON_FILE, costMovements, costReport, parseToolVectors, regressionsJson, regressionsMarkdown, toolVectorsJson, type CostMovement } from '../../../src/results/history/index.js';
import { Sweeps, failed, measured, tool, words } from './build.js';

const path = { path: { type: 'string' } };
const before = [tool('read_file', 'Read a file.', path), tool('list_dir', 'List a folder.', path)];
// Tuned so the description grows by 124 tokens and the new tool costs 66: the review's +190 case.
const after = [
  tool('read_file', `Read a file. ${words(60)} Read a file.`, path),
  before[1]!,
  tool('search', `Search files. ${words(19, 'term')} x`, { query: { type: 'string' } }),
];

function section(markdown: string, heading: string): string {
  const start = markdown.indexOf(`## ${heading}\n`);
  expect(start).toBeGreaterThan(-1);
  const end = markdown.indexOf('\n## ', start + 1);
  return markdown.slice(start, end === -1 ? undefined : end);
}

function only(state: ResultsState): CostMovement {
  const [movement] = costMovements(state);
  if (movement === undefined) throw new Error('a movement was expected');
  return movement;
}

/** A record launched as `npx -y <pkg>` that says it is `version`. */
function release(server: string, specs: Parameters<typeof measured>[1], pkg: string, version: string): Measurement {
  return { ...measured(server, specs), launch: { command: 'npx', args: ['-y', pkg], argsRedacted: 0, envNames: [] }, serverInfo: { name: server, version } };
}

describe('attribution by tool and by field', () => {
  const state = new Sweeps().record('2026-08-05', measured('fs', before)).record('2026-08-12', measured('fs', after)).state();
  const movement = only(state);

  it('+190 is told as 66 from the new tool and 124 from an existing description, never as "more tools"', () => {
    expect(movement.delta).toBe(190);
    expect(movement.summary).toBe('+190: +66 from 1 new tool, +124 from existing tools (description +124)');
    expect(movement.mechanism).toBe('mixed');
    const parts = movement.attribution;
    if (parts === 'unavailable') throw new Error('attribution expected');
    expect(parts).toMatchObject({ addedTokens: 66, existing: { delta: 124, description: 124, inputSchema: 0, outputSchema: 0, rest: 0 }, unattributed: 0, outputSchemaUnrecorded: null });
    const markdown = regressionsMarkdown(state);
    expect(markdown).toMatch(/### fs: \+190 \(\+\d+\.\d%\) tokens, mixed\n/);
    expect(markdown).toContain('Mechanism: +190: +66 from 1 new tool, +124 from existing tools (description +124).');
  });

  it('an output schema that grew is named as the output schema', () => {
    const schema = (count: number): Record<string, unknown> => ({ type: 'object', properties: Object.fromEntries(Array.from({ length: count }, (_, index) => [`field${index}`, { type: 'string' }])) });
    const grown = new Sweeps()
      .record('2026-08-05', measured('out', [tool('get', 'Get it.', path, schema(1))]))
      .record('2026-08-12', measured('out', [tool('get', 'Get it.', path, schema(12))]))
      .state();
    const moved = only(grown);
    expect(moved.summary).toMatch(/^\+\d+: \+\d+ from existing tools \(output schema \+\d+\)$/);
    expect(regressionsMarkdown(grown)).toMatch(/- changed get: \+\d+ tokens \(\d+ → \d+\); description 0, input schema 0, output schema \+\d+, name and the rest 0/);
  });

  it('a vector written before output schemas were kept: that split is unavailable for its side, not guessed', () => {
    const sweeps = new Sweeps().record('2026-08-05', measured('old', before));
    const state = sweeps.state();
    const server = state.servers[0]!;
    // As an older file holds it: read back without the field.
    const text = toolVectorsJson(server.vectors).replace(/,\n\s*"outputSchemaTokens": \d+/g, '');
    expect(text).not.toContain('outputSchemaTokens');
    const oldVectors = parseToolVectors(text, 'tool-vectors.json');
    const next = new Sweeps();
    next.record('2026-08-05', measured('old', before), { vectors: false });
    const later = next.record('2026-08-12', measured('old', after)).state();
    const withOld = { ...later, servers: [{ ...later.servers[0]!, vectors: { ...oldVectors, vectors: [...oldVectors.vectors, ...later.servers[0]!.vectors.vectors] } }] };
    const moved = only(withOld);
    expect(moved.summary).toBe('+190: +66 from 1 new tool, +124 from existing tools (description +124, output schema and the rest unavailable (not recorded for the earlier capture))');
    if (moved.attribution === 'unavailable') throw new Error('attribution expected');
    expect(moved.attribution.changed[0]).toMatchObject({ name: 'read_file', descriptionDelta: 124, outputSchemaDelta: null, restDelta: null });
    expect(moved.attribution.outputSchemaUnrecorded).toBe('before');
  });
});

describe('launch and server version', () => {
  it('a movement whose launch and version changed names both', () => {
    const state = new Sweeps()
      .record('2026-08-05', release('pkg', before, '@x/y@1.0.0', '1.0.0'))
      .record('2026-08-12', release('pkg', after, '@x/y@2.0.0', '2.0.0'))
      .state();
    expect(only(state).conditions).toEqual({ launch: { before: '@x/y@1.0.0', after: '@x/y@2.0.0' }, cwd: null, serverVersion: { before: '1.0.0', after: '2.0.0' } });
    const markdown = regressionsMarkdown(state);
    expect(markdown).toContain('Launch changed: @x/y@1.0.0 → @x/y@2.0.0; server version 1.0.0 → 2.0.0.');
    expect(section(markdown, 'Movements').split('\n').find((line) => line.startsWith('| **pkg** |'))).toContain('launch changed: @x/y@1.0.0 → @x/y@2.0.0; server version 1.0.0 → 2.0.0 |');
  });

  it('an unchanged launch says nothing; a launch folder, when the record names one, is compared too', () => {
    const inFolder = (specs: Parameters<typeof measured>[1], cwd: string): Measurement => {
      const record = release('pkg', specs, '@x/y@1.0.0', '1.0.0');
      return { ...record, launch: { ...record.launch, cwd } as unknown as Measurement['launch'] };
    };
    const state = new Sweeps().record('2026-08-05', inFolder(before, '/srv/a')).record('2026-08-12', inFolder(after, '/srv/b')).state();
    expect(only(state).conditions).toEqual({ launch: null, cwd: { before: '/srv/a', after: '/srv/b' }, serverVersion: null });
  });
});

describe('a fall to a failure and a return from one', () => {
  const state = new Sweeps()
    .record('2026-08-05', release('fallen', before, '@x/y@1.0.0', '1.0.0'))
    .record('2026-08-12', release('fallen', before, '@x/y@1.0.0', '1.0.0'))
    .record('2026-08-19', { ...failed('fallen', 'startup-failure'), launch: { command: 'npx', args: ['-y', '@x/y@2.0.0'], argsRedacted: 0, envNames: [] } })
    .record('2026-08-05', measured('back', before))
    .record('2026-08-12', failed('back', 'timeout'))
    .record('2026-08-19', measured('back', before))
    .record('2026-08-05', measured('mover', before))
    .record('2026-08-12', measured('mover', after))
    .state();
  const markdown = regressionsMarkdown(state);

  it('measured -> startup-failure is the worst movement: first, with the last number, its date and the status', () => {
    const report = costReport(state);
    expect(report.fell).toEqual([
      {
        server: 'fallen',
        last: expect.objectContaining({ date: '2026-08-12', tokens: measured('x', before).totalTokens, tools: 2 }),
        failed: expect.objectContaining({ date: '2026-08-19', status: 'startup-failure' }),
        latest: expect.objectContaining({ date: '2026-08-19', status: 'startup-failure' }),
        failures: 1,
        conditions: { launch: { before: '@x/y@1.0.0', after: '@x/y@2.0.0' }, cwd: null, serverVersion: { before: '1.0.0', after: null } },
      },
    ]);
    expect(markdown.indexOf('## Fell to a failure')).toBeLessThan(markdown.indexOf('## Movements'));
    const row = section(markdown, 'Fell to a failure').split('\n').find((line) => line.startsWith('| **fallen** |'));
    expect(row).toContain(`| ${measured('x', before).totalTokens} (2 tools) | 2026-08-12 | 2026-08-19 (startup-failure) | **startup-failure** | 1 |`);
    expect(row).toContain('launch changed: @x/y@1.0.0 → @x/y@2.0.0');
  });

  it('never under "No movement"', () => {
    expect(section(markdown, 'No movement')).not.toContain('fallen');
    expect(section(markdown, 'Movements')).not.toContain('fallen');
  });

  it('a return from a failure to measured is listed, with the failure it returned from', () => {
    expect(costReport(state).returned).toEqual([
      {
        server: 'back',
        before: expect.objectContaining({ date: '2026-08-05' }),
        failed: expect.objectContaining({ date: '2026-08-12', status: 'timeout' }),
        failures: 1,
        returned: expect.objectContaining({ date: '2026-08-19' }),
      },
    ]);
    expect(section(markdown, 'Returned from a failure')).toMatch(/\| back \| \d+ \(2026-08-05\) \| 2026-08-12 \(timeout\) \| 1 \| 2026-08-19 \| \d+ \|/);
  });

  it('the structured report holds every server once, in its section', () => {
    const report = costReport(state);
    expect(report.movements.map((movement) => movement.server)).toEqual(['mover']);
    expect(report.held.map((held) => held.server)).toEqual(['back']);
    expect(report.none).toEqual([]);
    expect(JSON.parse(JSON.stringify(report))).toEqual(report);
  });
});

describe('regressions.json', () => {
  it('is the structured report, 2-space JSON with a final newline, the same whatever the order of the servers list', () => {
    const state = new Sweeps().record('2026-08-05', measured('fs', before)).record('2026-08-12', measured('fs', after)).record('2026-08-05', failed('gone', 'timeout')).state();
    const text = regressionsJson(state);
    expect(REGRESSIONS_JSON_FILE).toBe('regressions.json');
    expect(text).toBe(`${JSON.stringify(costReport(state), null, 2)}\n`);
    expect(JSON.parse(text)).toMatchObject({ method: 'cost-regression/v1', movements: [{ server: 'fs', delta: 190 }], none: [{ server: 'gone', status: 'timeout' }] });
    expect(regressionsJson({ ...state, servers: [...state.servers].reverse() })).toBe(text);
  });
});
