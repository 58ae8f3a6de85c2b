// gateway wrap/unwrap refusals and guarantees, without starting servers (--no-measure, or a fake
// measure): unknown client, no servers, ambiguous scope, managed file, already wrapped, changed
// since (unwrap refuses and shows the diff), dry run writes nothing, a failure midway leaves the
// client file untouched and removes what was written, entries the session does not load stay in
// the file with why, env values never printed (canary), the gateway config is 0600, and the rules.
import { randomUUID } from 'node:crypto';
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { audit } from '../../src/audit/index.js';
import { renderAudit } from '../../src/cli/_audit-render.js';
import { renderProposedGateway, renderWrapped } from '../../src/cli/_wrap-render.js';
import type { Measurement } from '../../src/measure/index.js';
import { applyWrap, planWrap, unwrap, type WrapOptions, type WrapPlan } from '../../src/wrap/index.js';
import { runCliCaptured } from '../support/cli-run.js';
import { referenceServers, writeClientHome } from './_client-homes.js';

const CANARY = `canary-${randomUUID()}`;
let root = '';
let home = '';
let cwd = '';
let count = 0;

function write(path: string, text: string): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  return path;
}

/** Every file under `dir` with its bytes, for "nothing written" checks. */
function snapshot(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (at: string): void => {
    for (const item of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, item.name);
      if (item.isDirectory()) walk(path);
      else files[relative(dir, path)] = readFileSync(path, 'base64');
    }
  };
  walk(dir);
  return files;
}

const entry = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({ command: 'node', args: ['server.js'], env: { API_KEY: CANARY }, ...extra });

beforeEach(() => {
  count += 1;
  root = mkdtempSync(join(tmpdir(), `mcpctx-wrap-${count}-`));
  home = join(root, 'home');
  cwd = join(root, 'project');
  mkdirSync(home, { recursive: true });
  mkdirSync(cwd, { recursive: true });
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

function options(extra: Partial<WrapOptions> & { client: string }): WrapOptions {
  return { roots: { home, cwd, platform: 'linux', systemRoot: join(root, 'system') }, env: {}, measure: false, launch: { command: 'node', args: ['/opt/mcpctx/dist/cli/main.js'] }, ...extra };
}

async function plan(extra: Partial<WrapOptions> & { client: string }): Promise<WrapPlan> {
  const planned = await planWrap(options(extra));
  if ('refused' in planned) throw new Error(planned.refused);
  return planned;
}

const desktopFile = (): string => join(home, '.config', 'Claude', 'claude_desktop_config.json');
const cli = (args: string[]): ReturnType<typeof runCliCaptured> => runCliCaptured(['gateway', ...args, '--home', home, '--cwd', cwd], root, {});

describe('refusals', () => {
  it('refuses an unknown client by name, with the clients it takes (exit 2)', async () => {
    const result = await cli(['wrap', '--client', 'notepad', '--no-measure']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('unknown client "notepad"');
    expect(result.stderr).toContain('claude-desktop');
  });

  it('refuses a client with no servers (exit 1)', async () => {
    write(desktopFile(), '{ "mcpServers": {} }\n');
    const result = await cli(['wrap', '--client', 'claude-desktop', '--no-measure']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('has no servers to front');
  });

  it('refuses when several places hold servers, naming the --scope of each (exit 2)', async () => {
    write(join(home, '.cursor', 'mcp.json'), JSON.stringify({ mcpServers: { a: entry() } }));
    write(join(cwd, '.cursor', 'mcp.json'), JSON.stringify({ mcpServers: { b: entry() } }));
    const result = await cli(['wrap', '--client', 'cursor', '--no-measure']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--scope user');
    expect(result.stderr).toContain('--scope project');
    expect((await plan({ client: 'cursor', scope: 'project' })).fronted.map((server) => server.name)).toEqual(['b']);
  });

  it("refuses VS Code's two user files both holding servers, naming them (exit 1)", async () => {
    write(join(home, '.config', 'Code', 'User', 'mcp.json'), JSON.stringify({ servers: { a: entry() } }));
    write(join(home, '.config', 'Code', 'User', 'settings.json'), JSON.stringify({ mcp: { servers: { b: entry() } } }));
    const result = await cli(['wrap', '--client', 'vscode', '--scope', 'user', '--no-measure']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('settings.json');
    expect(result.stderr).toContain('move the servers into one of them');
  });

  it("refuses Claude Code's managed file", async () => {
    write(join(root, 'system', 'etc', 'claude-code', 'managed-mcp.json'), JSON.stringify({ mcpServers: { a: entry() } }));
    const refused = await planWrap(options({ client: 'claude-code' }));
    expect(refused).toMatchObject({ kind: 'state' });
    expect('refused' in refused && refused.refused).toContain('administrator');
  });

  it('refuses to wrap a file twice (exit 1), and unwrap of a file never wrapped (exit 1)', async () => {
    write(desktopFile(), JSON.stringify({ mcpServers: { a: entry() } }));
    expect((await cli(['unwrap', '--client', 'claude-desktop'])).code).toBe(1);
    expect('manifest' in (await applyWrap(await plan({ client: 'claude-desktop' })))).toBe(true);
    const again = await cli(['wrap', '--client', 'claude-desktop', '--no-measure']);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('already');
  });
});

describe('wrap and unwrap', () => {
  it('tells its progress on stderr while it measures, and the undo names the folders it was given', async () => {
    const memory = join(process.cwd(), 'node_modules', '@modelcontextprotocol', 'server-memory', 'dist', 'index.js');
    write(desktopFile(), JSON.stringify({ mcpServers: { memory: { command: process.execPath, args: [memory], env: { MEMORY_FILE_PATH: join(root, 'memory.json') } } } }, null, 2));
    const result = await cli(['wrap', '--client', 'claude-desktop', '--launch', 'npx -y mcpctx']);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('measuring 1 server (concurrency 1)');
    expect(result.stderr).toMatch(/\[1\/1\] started memory\n/);
    expect(result.stderr).toMatch(/\[1\/1\] memory: measured [\d,]+ tokens in /);
    expect(result.stdout).not.toContain('started memory');
    expect(result.stdout).toContain(`undo: `);
    expect(result.stdout).toMatch(new RegExp(`gateway unwrap --client claude-desktop --scope user --home \\S*${home.split('/').pop() ?? ''} --cwd \\S*project`));
  }, 60_000);

  it('--dry-run prints both diffs, without env values, and writes nothing', async () => {
    const password = `pw-${randomUUID()}`;
    write(desktopFile(), JSON.stringify({ mcpServers: { a: entry(), b: { url: 'https://example.test/mcp', headers: { 'X-Key': CANARY } }, c: { url: `https://me:${password}@example.test/mcp` } } }, null, 2));
    const before = snapshot(root);
    const text = await cli(['wrap', '--client', 'claude-desktop', '--no-measure', '--dry-run']);
    const json = await cli(['wrap', '--client', 'claude-desktop', '--no-measure', '--dry-run', '--json']);
    expect(text.code).toBe(0);
    expect(json.code).toBe(0);
    expect(text.stdout).toContain(`--- ${desktopFile()}`);
    expect(text.stdout).toContain('--- /dev/null');
    expect(text.stdout).toContain('+    "mcpctx-gateway"');
    for (const output of [text, json]) expect(output.stdout + output.stderr).not.toContain(CANARY);
    for (const output of [text, json]) expect(output.stdout + output.stderr).not.toContain(password);
    expect(snapshot(root)).toEqual(before);
  });

  it('writes the gateway config 0600 with the env values, and leaves unlaunchable, disabled and literal-header entries in the file with why', async () => {
    write(
      desktopFile(),
      JSON.stringify({ mcpServers: { a: entry(), off: entry({ disabled: true }), pathy: { command: 'node', args: ['${HOME}/x.js'] }, keyed: { url: 'https://example.test/mcp', headers: { 'X-Key': CANARY } } } }, null, 2),
    );
    const planned = await plan({ client: 'claude-desktop' });
    expect(planned.fronted.map((server) => server.name)).toEqual(['a']);
    const why = Object.fromEntries(planned.notFronted.map((item) => [item.name, item.why]));
    expect(why.off).toBe('disabled in the file');
    expect(why.pathy).toContain('unevaluated-expansion');
    expect(why.keyed).toContain('header values come from the environment');
    expect(JSON.stringify(planned.notFronted)).not.toContain(CANARY);
    await applyWrap(planned);
    expect(statSync(planned.gatewayConfigPath).mode & 0o777).toBe(0o600);
    expect(readFileSync(planned.gatewayConfigPath, 'utf8')).toContain(CANARY);
    const wrapped = JSON.parse(readFileSync(desktopFile(), 'utf8')) as { mcpServers: Record<string, unknown> };
    expect(Object.keys(wrapped.mcpServers).sort()).toEqual(['keyed', 'mcpctx-gateway', 'off', 'pathy']);
  });

  it("leaves in the file what Claude Code's own switches turn off (/mcp's disabledMcpServers), with the switch named", async () => {
    write(join(home, '.claude.json'), JSON.stringify({ mcpServers: { a: entry(), b: entry({ args: ['b.js'] }) }, projects: { [cwd]: { disabledMcpServers: ['b'] } } }, null, 2));
    const planned = await plan({ client: 'claude-code', scope: 'user' });
    expect(planned.fronted.map((server) => server.name)).toEqual(['a']);
    expect(planned.notFronted).toEqual([{ name: 'b', why: expect.stringContaining('disabledMcpServers') }]);
  });

  it('leaves in the file what the client does at launch and the gateway would not (keyring, envFile, ${input:})', async () => {
    write(
      join(cwd, '.vscode', 'mcp.json'),
      JSON.stringify({ servers: { a: entry(), asks: entry({ env: { KEY: '${input:api-key}' } }), envy: entry({ args: ['e.js'], envFile: '${workspaceFolder}/.env' }) } }),
    );
    const planned = await plan({ client: 'vscode' });
    expect(planned.fronted.map((server) => server.name)).toEqual(['a']);
    const why = Object.fromEntries(planned.notFronted.map((item) => [item.name, item.why]));
    expect(why.asks).toContain('${input:ID}');
    expect(why.envy).toContain('envFile');
  });

  it('unwrap refuses a file changed since wrap (exit 1), says where the entries are and shows the diff without secrets', async () => {
    write(desktopFile(), JSON.stringify({ mcpServers: { a: entry() } }, null, 2));
    const planned = await plan({ client: 'claude-desktop' });
    await applyWrap(planned);
    const added = `added-${randomUUID()}`;
    const changed = readFileSync(desktopFile(), 'utf8').replace('"mcpServers": {', `"mcpServers": {\n    "added": { "command": "x", "env": { "T": "${added}" } },`);
    writeFileSync(desktopFile(), changed);
    const result = await cli(['unwrap', '--client', 'claude-desktop']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('changed since wrap');
    expect(result.stderr).toContain(`${planned.backupPath} under mcpServers`);
    expect(result.stdout).toContain('+    "added"');
    expect(readFileSync(desktopFile(), 'utf8')).toBe(changed);
    expect(result.stdout + result.stderr).not.toContain(CANARY);
    expect(result.stdout + result.stderr).not.toContain(added);
  });

  it.each([
    ['claude-code', '"numStartups": 4', '"numStartups": 5'],
    ['goose', 'GOOSE_PROVIDER: openai', 'GOOSE_PROVIDER: anthropic'],
    ['codex-cli', 'model = "gpt-5"', 'model = "gpt-5.1"'],
  ] as const)('unwrap --merge of a %s file changed since wrap keeps the change and puts the fronted entries back', async (client, from, to) => {
    const fixture = writeClientHome(client, root, referenceServers(join(root, 'data'), {}, { API_KEY: CANARY }));
    const original = readFileSync(fixture.file, 'utf8');
    await applyWrap(await plan({ client, roots: { home: fixture.home, cwd: fixture.cwd, platform: 'linux', systemRoot: join(root, 'system') } }));
    const wrapped = readFileSync(fixture.file, 'utf8');
    expect(wrapped).toContain(from);
    writeFileSync(fixture.file, wrapped.replace(from, to));
    const where = ['--home', fixture.home, '--cwd', fixture.cwd];
    expect((await runCliCaptured(['gateway', 'unwrap', '--client', client, ...where], root, {})).code).toBe(1);
    const merged = await runCliCaptured(['gateway', 'unwrap', '--client', client, '--merge', ...where], root, {});
    expect(merged.stderr).toBe('');
    expect(merged.code).toBe(0);
    expect(merged.stdout).toContain('merged');
    // The original with only the change made since: the same document, the change and the comments kept.
    const now = readFileSync(fixture.file, 'utf8');
    const parse = (text: string): unknown => (client === 'goose' ? parseYaml(text) : client === 'codex-cli' ? parseToml(text) : JSON.parse(text));
    expect(parse(now)).toEqual(parse(original.replace(from, to)));
    expect(now).toContain(to);
    if (client !== 'claude-code') expect(now.split('\n')[0]).toBe(original.split('\n')[0]);
    expect(readdirSync(dirname(fixture.file)).filter((name) => name.includes('mcpctx'))).toEqual([]);
  });

  it('a failure midway leaves the client file untouched and removes what it wrote', async () => {
    const original = JSON.stringify({ mcpServers: { a: entry() } }, null, 2);
    write(desktopFile(), original);
    const planned = await plan({ client: 'claude-desktop' });
    // The gateway config's folder cannot be made: a file stands where it would be.
    write(join(home, '.config', 'mcpctx'), 'in the way');
    await expect(applyWrap(planned)).rejects.toThrow(/wrap stopped at the gateway config/);
    expect(readFileSync(desktopFile(), 'utf8')).toBe(original);
    expect(readdirSync(dirname(desktopFile()))).toEqual(['claude_desktop_config.json']);
  });

  it('keeps the mode of the file through wrap and unwrap, and restores it byte for byte', async () => {
    const original = `{\r\n  "mcpServers": { "a": ${JSON.stringify(entry())} }\r\n}`;
    write(desktopFile(), original);
    chmodSync(desktopFile(), 0o640);
    await applyWrap(await plan({ client: 'claude-desktop' }));
    expect(statSync(desktopFile()).mode & 0o777).toBe(0o640);
    expect(statSync(`${desktopFile()}.mcpctx-backup`).mode & 0o777).toBe(0o640);
    const restored = await unwrap({ client: 'claude-desktop', roots: { home, cwd, platform: 'linux', systemRoot: join(root, 'system') } });
    expect(restored).toMatchObject({ restored: true });
    expect(readFileSync(desktopFile(), 'utf8')).toBe(original);
    expect(statSync(desktopFile()).mode & 0o777).toBe(0o640);
  });
});

describe('rules', () => {
  const measured = (tokens: number): Measurement => ({ status: 'measured', note: '', totalTokens: tokens, toolCount: 1, canonicalSha256: null }) as unknown as Measurement;

  it('turns search on above --search-above with the number that decided it, and off below', async () => {
    write(desktopFile(), JSON.stringify({ mcpServers: { a: entry(), b: entry({ args: ['other.js'] }) } }));
    const big = await plan({ client: 'claude-desktop', measure: true, measureWith: async () => measured(6_000) });
    expect(big.rules.search).toEqual({ enabled: true, why: '12,000 tokens, above 10,000' });
    expect(big.gatewayText).toContain('search:\n  enabled: true');
    const small = await plan({ client: 'claude-desktop', measure: true, searchAbove: 20_000, measureWith: async () => measured(6_000) });
    expect(small.rules.search).toEqual({ enabled: false, why: '12,000 tokens, not above 20,000' });
    const unmeasured = await plan({ client: 'claude-desktop' });
    expect(unmeasured.rules.search.enabled).toBe(false);
    expect(unmeasured.rules.search.why).toContain('--no-measure');
  });

  it("writes --cap and --deny, and Gemini's own tool filters as deny and allow", async () => {
    write(join(home, '.gemini', 'settings.json'), JSON.stringify({ mcpServers: { a: entry({ excludeTools: ['delete_all'] }), b: entry({ args: ['b.js'], includeTools: ['read'] }) } }));
    const planned = await plan({ client: 'gemini-cli', capTokens: 5_000, deny: ['*/write_*'] });
    expect(planned.rules.capTokens).toBe(5_000);
    expect(planned.rules.deny).toEqual(['*/write_*', 'a/delete_all']);
    expect(planned.rules.allow).toEqual(['a/*', 'b/read']);
    // Gemini's `tool(arg)` form keeps the tool: allowed by its name.
    write(join(home, '.gemini', 'settings.json'), JSON.stringify({ mcpServers: { a: entry({ includeTools: ['run(git)', 'run(ls)', 'read'] }) } }));
    expect((await plan({ client: 'gemini-cli' })).rules.allow).toEqual(['a/run', 'a/read']);
    expect(planned.gatewayText).toContain('capTokens: 5000');
  });

  it("audit --json proposes the rules per session, and shows a wrapped session's before and after", async () => {
    write(desktopFile(), JSON.stringify({ mcpServers: { a: entry(), b: entry({ args: ['other.js'] }) } }, null, 2));
    const roots = { home, cwd, platform: 'linux' as const, systemRoot: join(root, 'system') };
    const fake = async (): Promise<Measurement> => measured(6_000);
    const before = await audit({ roots, shellEnv: {}, measureWith: fake });
    const proposal = before.sessions.find((session) => session.client === 'claude-desktop')?.proposedGateway;
    expect(proposal?.search).toEqual({ enabled: true, why: '12,000 tokens, above 10,000' });
    expect(renderProposedGateway(proposal!)).toBe('gateway wrap would write: search on (12,000 tokens, above 10,000); capTokens 25,000');
    await applyWrap(await plan({ client: 'claude-desktop' }));
    const after = await audit({ roots, shellEnv: {}, measureWith: fake });
    const afterSession = after.sessions.find((session) => session.client === 'claude-desktop');
    expect(afterSession?.proposedGateway).toBeUndefined();
    const wrapped = afterSession?.wrapped;
    expect(wrapped).toMatchObject({ gatewayEntry: 'mcpctx-gateway', fronted: ['a', 'b'], before: { tokens: 12_000, complete: true }, after: { tokens: 6_000, complete: true } });
    expect(renderWrapped(wrapped!)).toContain('tokens per request: before 12,000, through the gateway 6,000');

    // A manifest that cannot be read is said, not skipped in silence: the session shows as the file is.
    writeFileSync(`${desktopFile()}.mcpctx-wrap.json`, '{ not json');
    const broken = await audit({ roots, shellEnv: {}, measureWith: fake });
    expect(broken.sessions.find((session) => session.client === 'claude-desktop')?.wrapped).toBeUndefined();
    expect(broken.wrapProblems).toEqual([`${desktopFile()}.mcpctx-wrap.json is not JSON: the session is shown as the file is, without its before figure`]);
    expect(renderAudit(broken)).toContain('claude_desktop_config.json.mcpctx-wrap.json is not JSON');
  });
});

describe('files', () => {
  it('follows a symlinked client file: the target is rewritten and restored, the link stays a link', async () => {
    const real = write(join(root, 'dotfiles', 'claude.json'), JSON.stringify({ mcpServers: { a: entry() } }, null, 2));
    mkdirSync(dirname(desktopFile()), { recursive: true });
    symlinkSync(real, desktopFile());
    const original = readFileSync(real, 'utf8');
    await applyWrap(await plan({ client: 'claude-desktop' }));
    expect(lstatSync(desktopFile()).isSymbolicLink()).toBe(true);
    expect(readFileSync(real, 'utf8')).toContain('mcpctx-gateway');
    await unwrap({ client: 'claude-desktop', roots: { home, cwd, platform: 'linux', systemRoot: join(root, 'system') } });
    expect(lstatSync(desktopFile()).isSymbolicLink()).toBe(true);
    expect(readFileSync(real, 'utf8')).toBe(original);
  });

  it("resolves VS Code's ${workspaceFolder} and ${userHome} in the gateway config, and leaves other ${NAME} for the gateway", async () => {
    write(join(cwd, '.vscode', 'mcp.json'), JSON.stringify({ servers: { a: entry({ env: { DATA: '${workspaceFolder}/data', CACHE: '${userHome}/.cache', TOKEN: '${env:TOKEN}' } }) } }));
    const planned = await plan({ client: 'vscode' });
    expect(planned.gatewayText).toContain(`DATA: ${cwd}/data`);
    expect(planned.gatewayText).toContain(`CACHE: ${home}/.cache`);
    expect(planned.gatewayText).toContain('TOKEN: ${env:TOKEN}');
  });

  it("fronts Claude Code's local scope when asked, and refuses the choice between user and local without --scope", async () => {
    write(join(home, '.claude.json'), JSON.stringify({ mcpServers: { a: entry() }, projects: { [cwd]: { mcpServers: { b: entry({ args: ['b.js'] }) } } } }, null, 2));
    const refused = await planWrap(options({ client: 'claude-code' }));
    expect(refused).toMatchObject({ kind: 'usage' });
    const local = await plan({ client: 'claude-code', scope: 'local' });
    expect(local.fronted.map((server) => server.name)).toEqual(['b']);
    expect(local.serversAt).toEqual(['projects', cwd, 'mcpServers']);
  });
});

