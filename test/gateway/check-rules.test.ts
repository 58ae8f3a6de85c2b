// Issue 31, item 2: `gateway check` reported a config valid while its rules matched no tool.
// It now starts the upstreams (real test servers here), lists their tools, shows each tool with
// the rules that apply, warns about a rule that matches nothing (an error with --strict) and
// reports an upstream that cannot start; --offline starts nothing. No process is left behind.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { waitForNoMarkedProcesses } from '../support/processes.js';
import { markEnvEntries, runCliProcess, tempDir, writeConfig } from './_gateway-process.js';

const CATALOG_SERVER = fileURLToPath(new URL('../servers/catalog-server.mjs', import.meta.url));
const SCRIPTED_SERVER = fileURLToPath(new URL('../servers/scripted-server.mjs', import.meta.url));

afterAll(async () => {
  expect(await waitForNoMarkedProcesses(15_000)).toEqual([]);
});

/** A catalog server listing read_file and write_file. */
function catalogEntry(dir: string, name: string): Record<string, unknown> {
  const catalog = join(dir, `${name}.json`);
  writeFileSync(catalog, JSON.stringify(['read_file', 'write_file'].map((tool) => ({ name: tool, inputSchema: { type: 'object' } }))));
  return { command: process.execPath, args: [CATALOG_SERVER], env: { ...markEnvEntries(), CATALOG_FILE: catalog, CALL_LOG: join(dir, `${name}.log`) } };
}

const check = (args: readonly string[]) => runCliProcess(['gateway', 'check', ...args], { timeoutMs: 60_000 });

describe('gateway check starts the upstreams and matches every rule against their tools', () => {
  it('a typo in a rule is a warning (exit 0), an error with --strict (exit 2); --json has each tool with its rules', async () => {
    const dir = tempDir('mcpctx-check-rules-');
    const config = writeConfig(
      {
        mcpServers: { fs: catalogEntry(dir, 'fs'), gh: catalogEntry(dir, 'gh'), off: { command: 'nowhere', disabled: true } },
        deny: ['fs/write_flie', 'gh__write_file'],
        tools: { read_file: { maxTokens: 900 }, off__read_file: { maxTokens: 900 } },
      },
      dir,
    );
    const plain = await check([config]);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout).toContain('upstream tools (started, listed and stopped):');
    expect(plain.stdout).toContain('    read_file (as fs__read_file): tools.read_file');
    expect(plain.stdout).toContain('    write_file (as gh__write_file): denied; deny[1]');
    expect(plain.stdout).toContain('  off: disabled, not started');
    expect(plain.stdout).toMatch(/warnings:\n {2}deny\[0\] "fs\/write_flie" matches no tool of fs\n$/);
    // A rule for a disabled server cannot be checked: said, not warned.
    expect(plain.stdout).toContain('  tools.off__read_file "off__read_file": off');

    const strict = await check([config, '--strict']);
    expect(strict.code).toBe(2);
    expect(strict.stdout).toContain('errors (--strict: a rule that matches no tool):\n  deny[0] "fs/write_flie" matches no tool of fs');

    const json = await check([config, '--json']);
    expect(json.code).toBe(0);
    const report = JSON.parse(json.stdout) as Record<string, unknown>;
    expect(report).toMatchObject({
      connected: true,
      unmatchedRules: ['deny[0] "fs/write_flie" matches no tool of fs'],
      warnings: ['deny[0] "fs/write_flie" matches no tool of fs'],
      upstreamChecks: [
        {
          name: 'fs',
          status: 'listed',
          error: null,
          tools: [
            { name: 'read_file', visibleName: 'fs__read_file', allowed: true, rules: ['tools.read_file'] },
            { name: 'write_file', visibleName: 'fs__write_file', allowed: true, rules: [] },
          ],
        },
        { name: 'gh', status: 'listed', tools: [{ name: 'read_file', rules: ['tools.read_file'] }, { name: 'write_file', allowed: false, rules: ['deny[1]'] }] },
        { name: 'off', status: 'disabled', tools: [] },
      ],
    });
    expect(await waitForNoMarkedProcesses(10_000)).toEqual([]);
  }, 120_000);

  it('an upstream that cannot start is reported (exit 3) while the others are checked; --offline starts nothing (exit 0)', async () => {
    const dir = tempDir('mcpctx-check-rules-');
    const config = writeConfig(
      {
        mcpServers: { fs: catalogEntry(dir, 'fs'), broken: { command: process.execPath, args: [SCRIPTED_SERVER, 'early-exit'], env: markEnvEntries() } },
        deny: ['broken/write_file', 'fs/write_file'],
      },
      dir,
    );
    const run = await check([config, '--strict', '--startup-timeout', '20000']);
    expect(run.code, run.stdout).toBe(3);
    expect(run.stdout).toMatch(/ {2}broken: could not start or list its tools: .*could not read config file/);
    expect(run.stdout).toContain('    write_file (as fs__write_file): denied; deny[1]');
    // Its own rule is not judged: the server never listed.
    expect(run.stdout).toContain('  deny[0] "broken/write_file": broken');
    expect(run.stdout).not.toContain('matches no tool');

    const offline = await check([config, '--offline', '--json']);
    expect(offline.code).toBe(0);
    expect(JSON.parse(offline.stdout)).toMatchObject({ connected: false, upstreamChecks: [{ name: 'fs', status: 'offline' }, { name: 'broken', status: 'offline' }], ruleMatches: [] });
    expect(await waitForNoMarkedProcesses(10_000)).toEqual([]);
  }, 120_000);
});

describe('gateway check names the tools whose outputSchema the listing leaves out (issue 31 case 1)', () => {
  it('left out by default, kept where dropOutputSchema: false; a denied tool is not named', async () => {
    const dir = tempDir('mcpctx-check-schema-');
    const catalog = join(dir, 'tools.json');
    const schema = { type: 'object', properties: { content: { type: 'string' } } };
    writeFileSync(
      catalog,
      JSON.stringify([
        { name: 'read_file', inputSchema: { type: 'object' }, outputSchema: schema },
        { name: 'stat_file', inputSchema: { type: 'object' }, outputSchema: schema },
        { name: 'write_file', inputSchema: { type: 'object' }, outputSchema: schema },
        { name: 'list', inputSchema: { type: 'object' } },
      ]),
    );
    const entry = { command: process.execPath, args: [CATALOG_SERVER], env: { ...markEnvEntries(), CATALOG_FILE: catalog, CALL_LOG: join(dir, 'fs.log') } };
    const config = writeConfig({ mcpServers: { fs: entry }, deny: ['write_file'], tools: { stat_file: { dropOutputSchema: false } } }, dir);
    const plain = await check([config]);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout).toContain('    outputSchema left out of the listing: read_file\n');
    expect(plain.stdout).toContain('    outputSchema listed (reshaped results marked isError): stat_file\n');
    expect(plain.stdout).toContain('outputSchema: left out of every listed tool but stat_file');
    const json = JSON.parse((await check([config, '--json'])).stdout) as { upstreamChecks: Array<{ outputSchema: unknown }> };
    expect(json.upstreamChecks[0]?.outputSchema).toEqual({ leftOut: ['read_file'], kept: ['stat_file'] });
  });
});
