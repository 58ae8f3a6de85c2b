// `gateway wrap` on the ten clients audit reads: for each, a fixture home with that client's config
// (server-everything, server-filesystem, server-memory from node_modules, no network), then wrap
// (measuring the fronted servers once), audit (the wrapped session through the gateway, with the
// before figure from the backup), unwrap (checked byte-identical). The table is tokens per request
// before and after, per client: the closing note's table. Needs dist/ (npm run build).
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { audit, type AuditRoots, type SessionWrapped } from '../src/audit/index.js';
import { applyWrap, planWrap, unwrap } from '../src/wrap/index.js';
import { WRAP_CLIENT_CASES, referenceServers, writeClientHome } from '../test/wrap/_client-homes.js';
import { type BenchContext, type BenchReport, PROJECT_ROOT } from './_harness.js';

const MAIN = join(PROJECT_ROOT, 'dist', 'cli', 'main.js');

/** Wrap (search decided above `searchAbove`, the default when undefined), audit, unwrap; the file must come back byte for byte. */
async function roundTrip(client: (typeof WRAP_CLIENT_CASES)[number], roots: AuditRoots, file: string, original: Buffer, searchAbove: number | undefined): Promise<{ scope: string; search: { enabled: boolean }; wrapped: SessionWrapped }> {
  const plan = await planWrap({ client, roots, env: {}, runs: 1, launch: { command: process.execPath, args: [MAIN] }, ...(searchAbove === undefined ? {} : { searchAbove }) });
  if ('refused' in plan) throw new Error(`${client}: wrap refused: ${plan.refused}`);
  const applied = await applyWrap(plan);
  if ('refused' in applied) throw new Error(`${client}: wrap refused: ${applied.refused}`);
  const report = await audit({ roots, shellEnv: {}, runs: 1 });
  const wrapped = report.sessions.find((session) => session.client === client)?.wrapped;
  const restored = await unwrap({ client, roots });
  if ('refused' in restored) throw new Error(`${client}: unwrap refused: ${restored.refused}`);
  const identical = readFileSync(file).equals(original);
  if (wrapped === undefined || !identical) throw new Error(`${client}: ${wrapped === undefined ? 'audit shows no wrapped session' : 'unwrap did not restore the file byte for byte'}`);
  return { scope: plan.scope, search: plan.rules.search, wrapped };
}

export async function run({ progress }: BenchContext): Promise<BenchReport> {
  if (!existsSync(MAIN)) throw new Error('run npm run build first: the wrapped entry starts dist/cli/main.js');
  const root = mkdtempSync(join(tmpdir(), 'mcpctx-bench-wrap-'));
  const rows: string[][] = [];
  const figures: Record<string, unknown> = {};
  try {
    for (const client of WRAP_CLIENT_CASES) {
      progress(client);
      const base = join(root, client);
      const fixture = writeClientHome(client, base, referenceServers(join(base, 'data')));
      const roots = { home: fixture.home, cwd: fixture.cwd, platform: 'linux' as const, systemRoot: join(base, 'system') };
      const original = readFileSync(fixture.file);
      const proposed = await roundTrip(client, roots, fixture.file, original, undefined);
      // The same session with search on at any size: what the gateway's search_tools costs instead.
      const searched = await roundTrip(client, roots, fixture.file, original, 0);
      const shown = (value: { tokens: number; complete: boolean }): string => (value.complete ? value.tokens.toLocaleString('en-US') : 'unknown');
      rows.push([client, proposed.scope, shown(proposed.wrapped.before), shown(proposed.wrapped.after), proposed.search.enabled ? 'on' : 'off', shown(searched.wrapped.after)]);
      figures[client] = { scope: proposed.scope, file: fixture.file.slice(root.length), before: proposed.wrapped.before, after: proposed.wrapped.after, search: proposed.search, afterWithSearch: searched.wrapped.after, identicalAfterUnwrap: true };
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  return {
    title: 'gateway wrap: tokens per request of each client session before and after (everything + filesystem + memory, o200k)',
    table: { columns: ['client', 'scope', 'before tokens/request', 'after tokens/request', 'search', 'after, search on'], rows },
    figures,
    notes: [
      `the same as a markdown table:\n\n| client | scope | before tokens/request | after, proposed rules | after, search on |\n|---|---|---:|---:|---:|\n${rows.map((row) => `| ${[...row.slice(0, 4), row[5] ?? ''].join(' | ')} |`).join('\n')}\n`,
      'after: what the mcpctx-gateway entry lists with the rules wrap proposed (search off below 10,000 tokens, capTokens 25,000); outputSchema is left out by the gateway',
      'after, search on: the same wrap with --search-above 0, so the gateway lists search_tools in place of the catalog',
    ],
  };
}
