// Claude divergence (tools-delta/v1) on the real catalogs: the projection carries exactly name,
// description and input_schema; the block's capture-side figures re-derive in verify (and a
// tampered one fails); the leaderboard shows the column only where a record carries it for its
// own capture, and older results keep their bytes.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { catalogCost, verifyMeasurement, type Measurement } from '../../src/measure/index.js';
import { claudeDivergence, claudeProjection, type AnthropicToolProjection } from '../../src/measure/_claude-divergence.js';
import { leaderboard, leaderboardMarkdown } from '../../src/results/leaderboard/index.js';
import { canonicalJson, countTokens } from '../../src/tokens/index.js';
import { record, server, state } from '../results/leaderboard/_state.js';

const CATALOGS = fileURLToPath(new URL('../fixtures/mcp-tool-catalogs/', import.meta.url));

function catalogs(): Array<{ file: string; tools: unknown[] }> {
  return readdirSync(CATALOGS)
    .filter((file) => file.endsWith('.tools.json'))
    .map((file) => {
      const parsed = JSON.parse(readFileSync(join(CATALOGS, file), 'utf8')) as { tools?: unknown[] } | unknown[];
      return { file, tools: Array.isArray(parsed) ? parsed : (parsed.tools ?? []) };
    });
}

/** A count_tokens stand-in: a fixed frame plus the o200k tokens of what it is given. */
function fakeCounter(seen: Array<AnthropicToolProjection[] | undefined>): (tools: AnthropicToolProjection[] | undefined) => Promise<number> {
  return (tools) => {
    seen.push(tools);
    return Promise.resolve(8 + (tools === undefined ? 0 : 300 + countTokens(canonicalJson(tools))));
  };
}

describe('claudeDivergence on real catalogs', () => {
  it('asks with exactly the three fields and without tools, and records the difference and the field-selection share', async () => {
    const all = catalogs();
    expect(all.length).toBeGreaterThanOrEqual(5);
    for (const { file, tools } of all) {
      const cost = catalogCost(tools, null);
      const seen: Array<AnthropicToolProjection[] | undefined> = [];
      const block = await claudeDivergence(tools, cost, 'claude-test-1', fakeCounter(seen), () => new Date('2026-12-02T00:00:00Z'));
      expect(seen, file).toHaveLength(2);
      expect(seen[1]).toBeUndefined();
      for (const tool of seen[0] ?? []) expect(Object.keys(tool).every((key) => ['name', 'description', 'input_schema'].includes(key)), file).toBe(true);
      expect(seen[0]?.map((tool) => tool.name)).toEqual(tools.map((tool) => (tool as { name: string }).name));
      const projected = countTokens(canonicalJson(claudeProjection(tools)));
      expect(block).toEqual({
        method: 'tools-delta/v1',
        model: 'claude-test-1',
        claudeTokens: 300 + projected,
        withTools: 308 + projected,
        withoutTools: 8,
        projectedTokens: projected,
        fieldSelectionShare: Math.round((projected / cost.totalTokens) * 10_000) / 10_000,
        canonicalSha256: cost.canonicalSha256,
        measuredAt: '2026-12-02T00:00:00.000Z',
      });
    }
  });

  it('refuses a capture whose tool has no name', () => {
    expect(() => claudeProjection([{ description: 'x' }])).toThrow(/no name/);
  });
});

describe('verify with a claude block', () => {
  async function measuredRecord(): Promise<Measurement> {
    const tools = catalogs()[0]!.tools;
    const cost = catalogCost(tools, null);
    const base = record('srv', { tokens: cost.totalTokens, tools: cost.toolCount });
    const measurement: Measurement = {
      ...base,
      totalTokens: cost.totalTokens,
      toolCount: cost.toolCount,
      canonicalSha256: cost.canonicalSha256,
      canonicalBytes: cost.canonicalBytes,
      rawToolsCapture: tools,
      perTool: cost.perTool,
      sessionStart: cost.sessionStart,
      serverInstructions: null,
    };
    measurement.claude = await claudeDivergence(tools, cost, 'claude-test-1', fakeCounter([]));
    return measurement;
  }

  it('re-derives the projection figures and passes; a changed one fails, naming the field', async () => {
    const good = await measuredRecord();
    const report = verifyMeasurement(JSON.parse(JSON.stringify(good)));
    expect(report.ok, report.note).toBe(true);
    expect(report.checked).toContain('claude');
    expect(report.note).toContain('not re-derivable offline');
    for (const [field, value] of [
      ['projectedTokens', good.claude!.projectedTokens + 1],
      ['fieldSelectionShare', 0.5],
      ['canonicalSha256', 'b'.repeat(64)],
      ['claudeTokens', good.claude!.claudeTokens + 1],
    ] as const) {
      const tampered = JSON.parse(JSON.stringify(good)) as { claude: Record<string, unknown> };
      tampered.claude[field] = value;
      const failed = verifyMeasurement(tampered);
      expect(failed.ok, field).toBe(false);
      expect(failed.differences.map((difference) => difference.field)).toEqual([`claude.${field}`]);
    }
  });

  it('ignores the block when absent (records made before it existed still verify)', async () => {
    const good = await measuredRecord();
    delete good.claude;
    const report = verifyMeasurement(JSON.parse(JSON.stringify(good)));
    expect(report.ok).toBe(true);
    expect(report.checked).not.toContain('claude');
  });
});

describe('the leaderboard claude column', () => {
  function withClaude(name: string, tokens: number, sha = 'a'.repeat(64)): ReturnType<typeof server> {
    const entry = server(name, { tokens: 1_000 });
    entry.measurement!.claude = { method: 'tools-delta/v1', model: 'claude-test-1', claudeTokens: tokens, withTools: tokens + 8, withoutTools: 8, projectedTokens: 900, fieldSelectionShare: 0.9, canonicalSha256: sha, measuredAt: '2026-12-02T00:00:00.000Z' };
    return entry;
  }

  it('shows Claude tokens where the block belongs to the record\'s capture, and nothing where it is stale', () => {
    const board = leaderboard(state([withClaude('fresh', 1_234), withClaude('stale', 999, 'c'.repeat(64)), server('plain')]));
    const byName = new Map(board.rows.map((row) => [row.server, row]));
    expect(byName.get('fresh')?.claude).toEqual({ tokens: 1_234, model: 'claude-test-1' });
    expect(byName.get('stale')).not.toHaveProperty('claude');
    expect(byName.get('plain')).not.toHaveProperty('claude');
    const markdown = leaderboardMarkdown(state([withClaude('fresh', 1_234), server('plain')]));
    expect(markdown).toContain('| claude |');
    expect(markdown).toMatch(/\| fresh \|.*\| 1,234 \|/);
    expect(markdown).toContain('tools-delta/v1; claude-test-1');
  });

  it('leaves results without any block byte-identical (no column, no field)', () => {
    const plain = state([server('a'), server('b', { tokens: 50 })]);
    expect(leaderboardMarkdown(plain)).not.toContain('claude');
    expect(JSON.stringify(leaderboard(plain))).not.toContain('claude');
  });
});
