// Acceptance of `gateway wrap` for every client audit reads: a fixture home per client with its
// config in the real format (comments where allowed) holding server-everything, server-filesystem
// and server-memory; wrap, then audit shows the session through the gateway with the before and
// after tokens per request, then unwrap leaves the original file byte-identical. An env canary in
// the file appears in no output, and the gateway config is 0600.
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditReport } from '../../src/audit/index.js';
import { renderAudit } from '../../src/cli/_audit-render.js';
import { runCliCaptured } from '../support/cli-run.js';
import { markedEnv, waitForNoMarkedProcesses } from '../support/processes.js';
import { PROJECT_ROOT } from '../support/real-servers.js';
import { WRAP_CLIENT_CASES, referenceServers, writeClientHome } from './_client-homes.js';

const CANARY = `canary-${randomUUID()}`;
/** Tokens of the pinned reference servers (DESIGN.md): everything + filesystem + memory. */
const BEFORE = 1_708 + 2_823 + 2_378;
const MAIN = join(PROJECT_ROOT, 'dist', 'cli', 'main.js');
const LAUNCH = `${process.execPath} ${MAIN}`;
let root = '';

beforeAll(() => {
  if (!existsSync(MAIN)) throw new Error('run npm run build first: the wrapped entry starts dist/cli/main.js');
  root = mkdtempSync(join(tmpdir(), 'mcpctx-wrap-clients-'));
});

afterAll(async () => {
  rmSync(root, { recursive: true, force: true });
  expect(await waitForNoMarkedProcesses()).toEqual([]);
});

describe('gateway wrap, audit, unwrap for each client', () => {
  it.each(WRAP_CLIENT_CASES)('%s', async (client) => {
    const base = join(root, client);
    const fixture = writeClientHome(client, base, referenceServers(join(base, 'data'), markedEnv(), { API_KEY: CANARY }));
    const original = readFileSync(fixture.file);
    const where = ['--home', fixture.home, '--cwd', fixture.cwd];

    const wrapped = await runCliCaptured(['gateway', 'wrap', '--client', client, ...where, '--no-measure', '--launch', LAUNCH, '--json']);
    expect(wrapped.stderr).toBe('');
    expect(wrapped.code).toBe(0);
    const plan = JSON.parse(wrapped.stdout) as { scope: string; fronted: Array<{ name: string }>; notFronted: unknown[]; gatewayConfigPath: string };
    expect(plan.scope).toBe(fixture.scope);
    expect(plan.fronted.map((server) => server.name).sort()).toEqual(['everything', 'filesystem', 'memory']);
    expect(plan.notFronted).toEqual([]);
    expect(statSync(plan.gatewayConfigPath).mode & 0o777).toBe(0o600);
    expect(readFileSync(fixture.file, 'utf8')).toContain('mcpctx-gateway');

    const audited = await runCliCaptured(['audit', ...where, '--runs', '1', '--json']);
    expect(audited.code).toBe(0);
    const report = JSON.parse(audited.stdout) as AuditReport;
    const session = report.sessions.find((item) => item.client === client);
    expect(session?.loaded).toEqual(['mcpctx-gateway']);
    expect(session?.wrapped?.before).toEqual({ tokens: BEFORE, complete: true });
    expect(session?.wrapped?.after.complete).toBe(true);
    expect(session?.wrapped?.after.tokens).toBeGreaterThan(0);
    expect(session?.totals.tokens).toBe(session?.wrapped?.after.tokens);
    // The text report puts the two figures side by side, under the sessions table.
    const text = renderAudit(report);
    expect(text).toContain(`${client}: wrapped by mcpctx gateway: `);
    expect(text.replace(/\n\s+/g, ' ')).toContain(`cost ${BEFORE.toLocaleString('en-US')} tokens per request before, ${(session?.wrapped?.after.tokens ?? 0).toLocaleString('en-US')} through the gateway`);

    const unwrapped = await runCliCaptured(['gateway', 'unwrap', '--client', client, ...where]);
    expect(unwrapped.code).toBe(0);
    expect(readFileSync(fixture.file).equals(original)).toBe(true);
    expect(existsSync(`${fixture.file}.mcpctx-backup`)).toBe(false);
    expect(existsSync(`${fixture.file}.mcpctx-wrap.json`)).toBe(false);
    expect(existsSync(plan.gatewayConfigPath)).toBe(false);

    for (const output of [wrapped, audited, unwrapped]) expect(output.stdout + output.stderr).not.toContain(CANARY);
  }, 120_000);
});
