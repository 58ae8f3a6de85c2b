// Audit's auto threshold takes the exact published Claude count wherever a server's capture still
// matches it (low = high = that count) and the divergence band for the rest; a count computed from
// other bytes is stale, is not used, and the report names it. Seed 003, "The threshold comparison".
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { audit, type AuditReport } from '../../src/audit/index.js';
import type { Measurement, MeasureOptions } from '../../src/measure/index.js';
import { renderAudit } from '../../src/cli/_audit-render.js';

const BIG = 'b'.repeat(64);
const SMALL = 'c'.repeat(64);
const OLDER = 'a'.repeat(64);

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

/** A results folder holding `big`'s record, its Claude count computed from `claudeFrom`. */
function publishedResults(claudeFrom: string): string {
  const dir = tempDir('mcpctx-audit-published-');
  writeFileSync(
    join(dir, 'capture-index.json'),
    JSON.stringify({ method: 'capture-index/v1', captures: { [BIG]: { server: 'big-server', firstSeen: '2026-11-01', lastSeen: '2026-12-01', current: true } }, current: { 'big-server': BIG } }),
  );
  mkdirSync(join(dir, 'big-server'));
  writeFileSync(join(dir, 'big-server', 'measurement.json'), JSON.stringify({ name: 'big-server', canonicalSha256: BIG, totalTokens: 15_000, claude: { method: 'tools-delta/v1', claudeTokens: 26_000, canonicalSha256: claudeFrom } }));
  return dir;
}

const TOKENS: Record<string, { tokens: number; hash: string }> = { big: { tokens: 15_000, hash: BIG }, small: { tokens: 1_000, hash: SMALL } };

/** Claude Code with `big` (15,000 o200k) and `small` (1,000) under ENABLE_TOOL_SEARCH=auto: 10% of 200,000. */
async function claudeAudit(published?: string): Promise<{ report: AuditReport; session: AuditReport['sessions'][number] }> {
  const home = tempDir('mcpctx-audit-counts-');
  writeFileSync(join(home, '.claude.json'), JSON.stringify({ mcpServers: { big: { command: 'node', args: ['big.js'] }, small: { command: 'node', args: ['small.js'] } } }));
  const report = await audit({
    roots: { home, cwd: join(home, 'project'), platform: 'linux', systemRoot: join(home, 'system') },
    shellEnv: { ENABLE_TOOL_SEARCH: 'auto' },
    ...(published === undefined ? {} : { published }),
    measureWith: (options: MeasureOptions) => {
      const server = TOKENS[options.name];
      return Promise.resolve({ name: options.name, status: 'measured', note: '', totalTokens: server?.tokens ?? null, canonicalSha256: server?.hash ?? null } as Measurement);
    },
  });
  const session = report.sessions.find((item) => item.client === 'claude-code');
  expect(session).toBeDefined();
  return { report, session: session! };
}

describe('exact Claude counts in the auto threshold', () => {
  it('the band alone straddles; the exact published count of the matching capture makes it a definite above', async () => {
    // Band only: 16,000 o200k is 3,040-30,880 in Claude's units against 20,000.
    const { session: bandOnly } = await claudeAudit();
    expect(bandOnly.deferral?.threshold).toMatchObject({ lowTokens: 3_040, highTokens: 30_880, verdict: 'straddles', conversion: { exact: [], band: ['big', 'small'], stale: [] } });
    expect(bandOnly.deferral?.posture).toMatchObject({ posture: 'refused', refusal: 'threshold-straddles' });

    // big's capture is published with 26,000 Claude tokens: 26,000 + 190..1,930 for small.
    const { report, session: exact } = await claudeAudit(publishedResults(BIG));
    expect(exact.deferral?.threshold).toMatchObject({
      lowTokens: 26_190,
      highTokens: 27_930,
      verdict: 'above',
      conversion: { exact: [{ name: 'big', claudeTokens: 26_000, from: 'the published record of big-server' }], band: ['small'], stale: [] },
    });
    expect(exact.deferral?.posture.posture).toBe('deferred');
    expect(exact.deferral?.atSessionStart).toMatchObject({ loads: 'pinned-only', tokens: 0, pinned: [] });
    expect(renderAudit(report, { verbose: true })).toContain("converted to Claude's units: 1 server by exact Claude count (big 26,000 from the published record of big-server), 1 server through the divergence band");
  });

  it('ignores a published count computed from other bytes, converts that server through the band, and says so', async () => {
    const { report, session } = await claudeAudit(publishedResults(OLDER));
    expect(session.deferral?.threshold).toMatchObject({ lowTokens: 3_040, highTokens: 30_880, verdict: 'straddles' });
    expect(session.deferral?.threshold?.conversion).toEqual({
      exact: [],
      band: ['big', 'small'],
      stale: [{ name: 'big', why: `the Claude count in the published record of big-server was computed from capture ${OLDER.slice(0, 12)}, not ${BIG.slice(0, 12)} measured here: not used` }],
    });
    expect(renderAudit(report, { verbose: true })).toContain('stale Claude count: big: the Claude count in the published record of big-server was computed from capture aaaaaaaaaaaa');
  });
});
