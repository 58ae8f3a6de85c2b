// leaderboard.md: the header, the table cells, failures with notes, and hostile text kept inert.
import { describe, expect, it } from 'vitest';
import { leaderboardMarkdown } from '../../../src/results/leaderboard/index.js';
import { historyRow, server, state } from './_state.js';

/** The cells of a table line, split on the pipes markdown would split on (unescaped ones). */
function cells(line: string): string[] {
  return line
    .slice(1, -1)
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim());
}

function tableLines(markdown: string): string[][] {
  const tables: string[][] = [];
  let current: string[] | null = null;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('|')) {
      if (!current) tables.push((current = []));
      current.push(line);
    } else current = null;
  }
  return tables;
}

describe('leaderboardMarkdown', () => {
  const sample = state(
    [
      server('@scope/heavy', { tokens: 16_500, tools: 40, sessionStart: 300, instructions: 'absent' }),
      server('light', { tokens: 1_708, tools: 13, sessionStart: 2_000, instructions: 'Long instructions.' }),
      server('late', { published: 'not-yet-run' }),
      server('slow', { status: 'timeout', note: 'no answer to tools/list within the 60000 ms budget' }),
    ],
    [historyRow('light', '2026-08-01', 1_600), historyRow('light', '2026-08-08', 1_708), historyRow('@scope/heavy', '2026-08-08', 16_500)],
  );
  const markdown = leaderboardMarkdown(sample);

  it('names the tokenizer, the methodology and the counts by status in its header', () => {
    expect(markdown.startsWith('# ')).toBe(true);
    expect(markdown).toContain('o200k_base');
    expect(markdown).toContain('mcpctx-catalog/v1');
    expect(markdown).toContain('leaderboard/v1');
    expect(markdown).toContain('4 servers: 2 measured, 1 timeout, 1 not-yet-run.');
    expect(markdown.endsWith('\n')).toBe(true);
  });

  it('has every server in the table, with band, counts, ≥ floor, status, date and trend', () => {
    const [board] = tableLines(markdown);
    expect(board?.[0]).toBe('| rank | server | band | tools | tokens | session start | status | last measured | trend |');
    expect(board?.slice(2).map(cells)).toEqual([
      ['1', 'light', 'green', '13', '1,708', '2,000', 'measured', '2026-09-01', '↑ +108 since 2026-08-01'],
      ['2', '@scope/heavy', 'orange', '40', '16,500', '≥ 300', 'measured', '2026-09-01', '—'],
      ['—', 'slow', '—', '—', '—', '—', 'timeout', '2026-09-01', '—'],
      ['—', 'late', '—', '—', '—', '—', 'not-yet-run', 'never', '—'],
    ]);
  });

  it('lists the failures with their notes and what their statuses mean', () => {
    const notes = tableLines(markdown)[1];
    expect(notes?.slice(2).map(cells)).toEqual([
      ['slow', 'timeout', '2026-09-01', 'no answer to tools/list within the 60000 ms budget'],
      ['late', 'not-yet-run', 'never', '—'],
    ]);
    expect(markdown).toMatch(/^- timeout: .+budget/m);
    expect(markdown).toMatch(/^- not-yet-run: /m);
    expect(markdown).not.toMatch(/^- measured: /m);
  });

  it('names the servers whose session start is above their catalog', () => {
    expect(markdown).toContain('- light: session start 2,000, catalog 1,708 tokens');
    expect(markdown).not.toContain('- @scope/heavy: session start');
  });

  it('shows flat and down trends', () => {
    const flat = leaderboardMarkdown(state([server('s')], [historyRow('s', '2026-08-01', 100), historyRow('s', '2026-08-08', 100)]));
    expect(flat).toContain('| → ±0 since 2026-08-01 |');
    const down = leaderboardMarkdown(state([server('s')], [historyRow('s', '2026-08-01', 1_300), historyRow('s', '2026-08-08', 100)]));
    expect(down).toContain('| ↓ -1,200 since 2026-08-01 |');
  });

  it('keeps the shape of its tables with a hostile name and note, and lets no markup through', () => {
    const name = 'evil|name\n| 1 | fake |<script>alert(1)</script>`code` **bold** [link](http://x) \\| &#124;';
    const note = `bad|note\r\n## heading <img src=x onerror=alert(1)> ${'long '.repeat(200)}`;
    const hostile = leaderboardMarkdown(state([server(name, { tokens: 5 }), server(`${name}-failed`, { status: 'startup-failure', note })]));
    const tables = tableLines(hostile);
    expect(tables).toHaveLength(2);
    const [board, failures] = tables;
    expect(board).toHaveLength(4);
    for (const line of board ?? []) expect(cells(line)).toHaveLength(9);
    expect(failures).toHaveLength(3);
    for (const line of failures ?? []) expect(cells(line)).toHaveLength(4);
    expect(hostile).not.toMatch(/<script|<img|&#124;/);
    expect(hostile).not.toMatch(/^## heading/m);
    expect(hostile).not.toMatch(/(?<!\\)`/);
    const noteCell = cells(failures?.[2] ?? '')[3] ?? '';
    expect(noteCell.length).toBeLessThan(400);
    expect(noteCell.endsWith('…')).toBe(true);
    expect(noteCell.startsWith('bad\\|note \\#\\# heading &lt;img')).toBe(true);
  });

  it('is deterministic', () => {
    expect(leaderboardMarkdown(sample)).toBe(markdown);
    expect(leaderboardMarkdown(state([...sample.servers].reverse(), sample.history))).toBe(markdown);
  });
});
