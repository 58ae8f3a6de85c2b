// regressions.md: what a reader sees for each kind of server, deterministic, names taken literally.
import { describe, expect, it } from 'vitest';
import type { ResultsState } from '../../../src/results/index.js';
import { COST_REGRESSION_METHOD, REGRESSIONS_FILE, regressionsMarkdown } from '../../../src/results/history/index.js';
import { Sweeps, failed, measured, tool, words } from './build.js';

const path = { path: { type: 'string' } };
const base = [tool('read_file', 'Read a file.', path), tool('list_dir', 'List a folder.', path)];
const grown = [base[0]!, tool('list_dir', `List a folder. ${words(50)}`, path)];
const nudged = [base[0]!, tool('list_dir', 'List a folder, sorted.', path)];

function state(): ResultsState {
  return new Sweeps()
    .record('2026-08-05', measured('grower', base))
    .record('2026-08-12', measured('grower', grown))
    .record('2026-08-19', measured('grower', grown))
    .record('2026-08-05', measured('nudge', base))
    .record('2026-08-12', measured('nudge', nudged))
    .record('2026-08-05', measured('steady', base))
    .record('2026-08-12', measured('steady', base))
    .record('2026-08-19', failed('steady', 'timeout'))
    .record('2026-08-05', measured('grower-twin', base))
    .record('2026-08-12', measured('grower-twin', base))
    .record('2026-08-05', measured('rehosted', base, 'host'))
    .record('2026-08-12', measured('rehosted', grown, 'docker'))
    .record('2026-08-05', measured('legacy', base), { vectors: false })
    .record('2026-08-12', measured('legacy', grown))
    .record('2026-08-05', failed('broken', 'startup-failure'))
    .record('2026-08-05', measured('a|b *c* <x>', base))
    .state();
}

function section(markdown: string, heading: string): string {
  const start = markdown.indexOf(`## ${heading}\n`);
  expect(start).toBeGreaterThan(-1);
  const end = markdown.indexOf('\n## ', start + 1);
  return markdown.slice(start, end === -1 ? undefined : end);
}

describe('regressionsMarkdown', () => {
  const markdown = regressionsMarkdown(state());

  it('names its method and file', () => {
    expect(REGRESSIONS_FILE).toBe('regressions.md');
    expect(markdown.startsWith(`# Cost movements (${COST_REGRESSION_METHOD})\n`)).toBe(true);
    expect(markdown.endsWith('\n')).toBe(true);
    expect(markdown.endsWith('\n\n')).toBe(false);
  });

  it('an emphasised movement is bold with its window, held time and attribution', () => {
    const movements = section(markdown, 'Movements');
    const row = movements.split('\n').find((line) => line.startsWith('| **grower** |'));
    expect(row).toContain('| 2026-08-05 → 2026-08-12 |');
    expect(row).toContain('| heavier tools |');
    expect(row).toContain('since 2026-08-12 (2 measurements, latest 2026-08-19)');
    expect(movements).toMatch(/### grower: \+\d+ \(\+\d+\.\d%\) tokens, heavier tools\n/);
    expect(movements).toMatch(/Mechanism: \+\d+: \+\d+ from existing tools \(description \+\d+[^\n]*\)\.\n/);
    expect(movements).toMatch(/- changed list\\_dir: \+\d+ tokens \(\d+ → \d+\); description \+\d+, input schema 0, output schema 0, name and the rest [+-]?\d+\n- unattributed: 0 tokens/);
  });

  it('a small movement is listed, not emphasised', () => {
    const row = section(markdown, 'Movements').split('\n').find((line) => line.startsWith('| nudge |'));
    expect(row).toBeDefined();
    expect(row).not.toContain('**');
  });

  it('a missing vector says "breakdown unavailable" in those words', () => {
    expect(markdown).toMatch(/### legacy: [^\n]*\n\n[^\n]*\n\nMechanism: [^\n]*read from the totals[^\n]*\n\nPer-tool breakdown unavailable: no tool vector for capture [0-9a-f]{12} \(2026-08-05\)\./);
  });

  it('a server whose cost has held says since when, and a change across isolations is not a movement', () => {
    const held = section(markdown, 'No movement');
    expect(held).toMatch(/\| grower-twin \| \d+ \| 2 \| 2026-08-05 \| 2 \(latest 2026-08-12\) \| {2}\|/);
    expect(held).toMatch(/\| rehosted \| \d+ \| 2 \| 2026-08-12 \| 1 \| earlier sweeps under another isolation left out \|/);
    expect(section(markdown, 'Movements')).not.toContain('rehosted');
  });

  it('a server with nothing comparable is listed with its status', () => {
    expect(section(markdown, 'Nothing to compare')).toContain('| broken | startup-failure: no comparable measurement |');
  });

  it('takes names literally: no table cell, emphasis or HTML from a name', () => {
    expect(markdown).toContain('| a\\|b \\*c\\* \\<x\\> |');
    expect(markdown).not.toContain('<x>');
  });

  it('the same state gives the same bytes, whatever the order of the servers list', () => {
    const again = state();
    expect(regressionsMarkdown({ ...again, servers: [...again.servers].reverse() })).toBe(markdown);
  });

  it('an empty state still writes a whole report', () => {
    const empty = regressionsMarkdown({ servers: [], history: [] });
    expect(empty).toContain('No server has moved.');
    expect(section(empty, 'Nothing to compare')).toContain('None.');
  });
});
