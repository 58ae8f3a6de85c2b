// What a deferring Claude Code session loads at start: each deferred server's tool names and
// instructions (measure's sessionStart), each pinned server's instructions, and the pinned
// definitions beside them. A server without a count makes the sum a floor, and a session where no
// server has one says it cannot be said.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { audit, type AuditReport } from '../../src/audit/index.js';
import { renderAudit } from '../../src/cli/_audit-render.js';
import type { Measurement, MeasureOptions } from '../../src/measure/index.js';

/** The default report with its wrapped lines joined. */
function printed(report: AuditReport): string {
  return renderAudit(report).replace(/\s+/g, ' ');
}

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

interface Fake {
  tokens: number;
  names: number;
  instructions: number;
}

async function deferredAudit(servers: Record<string, unknown>, fakes: Record<string, Fake | null>): Promise<{ report: AuditReport; session: AuditReport['sessions'][number] }> {
  const home = mkdtempSync(join(tmpdir(), 'mcpctx-audit-start-'));
  dirs.push(home);
  writeFileSync(join(home, '.claude.json'), JSON.stringify({ mcpServers: servers }));
  const report = await audit({
    roots: { home, cwd: join(home, 'project'), platform: 'linux', systemRoot: join(home, 'system') },
    shellEnv: { ENABLE_TOOL_SEARCH: 'true' },
    measureWith: (options: MeasureOptions) => {
      const fake = fakes[options.name] ?? null;
      const measurement = fake === null
        ? { name: options.name, status: 'timeout', note: 'no answer', totalTokens: null, sessionStart: null }
        : { name: options.name, status: 'measured', note: '', totalTokens: fake.tokens, sessionStart: { namesTokens: fake.names, instructionsTokens: fake.instructions, total: fake.names + fake.instructions } };
      return Promise.resolve(measurement as Measurement);
    },
  });
  return { report, session: report.sessions.find((item) => item.client === 'claude-code')! };
}

describe('the session-start load of a deferring Claude Code session', () => {
  it('sums names and instructions of deferred servers and the instructions of pinned ones, beside the pinned definitions', async () => {
    const { report, session } = await deferredAudit(
      { a: { command: 'node', args: ['a.js'] }, b: { command: 'node', args: ['b.js'] }, pin: { command: 'node', args: ['pin.js'], alwaysLoad: true } },
      { a: { tokens: 2_000, names: 30, instructions: 300 }, b: { tokens: 1_000, names: 10, instructions: 0 }, pin: { tokens: 500, names: 5, instructions: 40 } },
    );
    // a: 30 + 300, b: 10, pin: its 40 of instructions (its names are inside its 500 tokens of definitions).
    expect(session.deferral?.atSessionStart).toEqual({ loads: 'pinned-only', tokens: 500, pinned: ['pin'], namesAndInstructions: { tokens: 380, complete: true, missing: [] } });
    expect(printed(report)).toContain('claude-code at session start: names and instructions 380 tokens, plus 500 pinned with alwaysLoad (pin)');
  });

  it('is a floor when a server has no count, and cannot be said when none has', async () => {
    const floor = await deferredAudit({ a: { command: 'node', args: ['a.js'] }, gone: { command: 'node', args: ['gone.js'] } }, { a: { tokens: 2_000, names: 30, instructions: 300 }, gone: null });
    expect(floor.session.deferral?.atSessionStart).toMatchObject({ namesAndInstructions: { tokens: 330, complete: false, missing: ['gone'] } });
    expect(printed(floor.report)).toContain('names and instructions >= 330 (no count for gone) tokens');
    const none = await deferredAudit({ gone: { command: 'node', args: ['gone.js'] } }, { gone: null });
    expect(printed(none.report)).toContain('claude-code at session start: cannot be said (no count of names and instructions for gone)');
  });
});
