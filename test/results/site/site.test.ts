import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isMcpctxError } from '../../../src/errors/index.js';
import { BAND_LIMITS, METHODOLOGY, safeSegment } from '../../../src/measure/index.js';
import { STATUS_MEANINGS } from '../../../src/results/_model.js';
import { buildSite } from '../../../src/results/site/index.js';
import { TOKENIZER } from '../../../src/tokens/index.js';
import { HOSTILE, HOSTILE_TOOL, writeResultsFixture } from './fixture.js';

let work: string;
let results: string;

beforeEach(async () => {
  work = await mkdtemp(join(tmpdir(), 'mcpctx-site-'));
  results = join(work, 'results');
  await writeResultsFixture(results);
});

afterEach(async () => {
  await rm(work, { recursive: true, force: true });
});

/** Every file under `dir` with its bytes, by relative path. */
async function tree(dir: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) {
      const full = join(entry.parentPath, entry.name);
      files[relative(dir, full)] = await readFile(full, 'utf8');
    }
  }
  return files;
}

async function refusal(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  const error = await promise.then(() => undefined, (caught: unknown) => caught);
  if (!isMcpctxError(error)) throw new Error(`expected an McpctxError, got ${String(error)}`);
  return { code: error.code, message: error.message };
}

const page = (site: Record<string, string>, server: string): string => site[`servers/${safeSegment(server)}.html`] ?? '';

describe('buildSite', () => {
  it('writes the same bytes for the same results, wherever they are built', async () => {
    const first = await buildSite({ resultsDir: results, outDir: join(work, 'a') });
    await buildSite({ resultsDir: results, outDir: join(work, 'b') });
    expect(await tree(join(work, 'a'))).toEqual(await tree(join(work, 'b')));
    expect(first.indexPath).toBe(join(work, 'a', 'index.html'));
    expect(first.indexUrl).toBe(`file://${join(work, 'a', 'index.html')}`);
    expect(first.pages).toContain('servers/alpha.html');
    expect(first.pages).toHaveLength(3 + 7);
    expect(first.badges).toBe(6);
    expect(first.badgesMissing).toEqual(['delta']);
  });

  it('copies the badges it shows and the measurement files byte for byte', async () => {
    await buildSite({ resultsDir: results, outDir: join(work, 'site') });
    const site = await tree(join(work, 'site'));
    expect(site['badges/alpha.svg']).toBe(await readFile(join(results, 'badges', 'alpha.svg'), 'utf8'));
    expect(site['data/alpha/measurement.json']).toBe(await readFile(join(results, 'alpha', 'measurement.json'), 'utf8'));
    expect(site['index.html']).toContain('src="badges/alpha.svg"');
    expect(site['badges/delta.svg']).toBeUndefined();
  });

  it('never emits a hostile name, note, tool name or description as markup', async () => {
    await buildSite({ resultsDir: results, outDir: join(work, 'site') });
    const site = await tree(join(work, 'site'));
    for (const html of [site['index.html'] ?? '', page(site, HOSTILE)]) {
      expect(html).not.toContain('<script>window');
      expect(html).not.toContain('<img src=x');
      expect(html).not.toContain('<b onmouseover');
      expect(html).not.toContain('</td></tr></table><');
      expect(html).toContain('&lt;script&gt;window.__pwned=1&lt;/script&gt;');
    }
    expect(page(site, HOSTILE)).toContain('&lt;b onmouseover=alert(1)&gt;grab&lt;/b&gt;');
    expect(HOSTILE_TOOL).toContain('<b');
    // The policy forbids inline scripts even if some string escaped escaping.
    expect(site['index.html']).toContain(`script-src 'self'`);
  });

  it('shows what a server page carries: launch, isolation, hash, session start, history, note, verify', async () => {
    await buildSite({ resultsDir: results, outDir: join(work, 'site') });
    const site = await tree(join(work, 'site'));
    const alpha = page(site, 'alpha');
    // Shell-quoted for copying, then escaped for HTML.
    expect(alpha).toContain(`npx -y alpha-mcp@1.0.0 --dir &#39;/tmp/it&#39;\\&#39;&#39;s here&#39;`);
    expect(alpha).toContain('<dt>Isolation</dt><dd>host <span class="muted">(linux, x64, node 20.19.0)</span></dd>');
    // The verify command is one a reader can run: from a clone, on the record the page links.
    expect(alpha).toContain('<pre><code id="verify-command">node dist/cli/main.js verify measurement.json</code></pre>');
    expect(alpha).toContain('<a href="../data/alpha/measurement.json">measurement.json</a>, is a byte-identical copy of <code>results/alpha/measurement.json</code>');
    expect(alpha).toContain('save the record into a clone of mcpctx, run <code>npm ci</code> there');
    expect(alpha).toMatch(/<dt>Session-start load<\/dt><dd>\d+ tokens/);
    expect(alpha).toContain('The comparable series starts 2026-11-16 (measured under host).');
    const beta = page(site, 'beta-remote');
    expect(beta).toContain('https://mcp.example.com/mcp?team=a&amp;b=&lt;c&gt;');
    expect(beta).toContain('<code>Authorization</code>');
    expect(beta).toMatch(/<dt>Session-start load<\/dt><dd>≥ \d+ tokens/);
    expect(beta).toContain('Older rows were measured under another isolation and are left out of the trend.');
    expect(beta).toMatch(/<tr class="outside"><td>2026-11-09<\/td>/);
    const epsilon = page(site, 'epsilon');
    expect(epsilon).toContain('<dt>Isolation</dt><dd><span class="muted">not recorded</span>');
    expect(epsilon).toContain('2 rows of it have no recorded isolation');
    expect(epsilon.split('exited with code 1 before initialize')).toHaveLength(2); // the note, once
    expect(page(site, 'delta')).toContain('Not swept yet');
    expect(page(site, 'delta')).not.toContain('id="verify-command"');
  });

  it('tells no reader to run npx mcpctx: no package of that name is ours on npm', async () => {
    await buildSite({ resultsDir: results, outDir: join(work, 'site') });
    const site = await tree(join(work, 'site'));
    const pages = Object.entries(site).filter(([path]) => path.endsWith('.html'));
    expect(pages.length).toBeGreaterThan(2);
    for (const [path, html] of pages) {
      expect(html, path).not.toMatch(/npx (-y )?mcpctx/);
      // Every page's footer points at the methodology's verify section, which names the command.
      expect(html, path).toMatch(/with mcpctx's <code>verify<\/code> \(<a href="(\.\.\/)?methodology\.html#verify">how<\/a>\)/);
    }
    const methodology = site['methodology.html'] ?? '';
    expect(methodology).toContain('<h2 id="verify">Verify</h2>');
    expect(methodology).toContain('<pre><code id="verify-command">node dist/cli/main.js verify path/to/measurement.json</code></pre>');
  });

  it('writes the methodology page from the constants the code measures with', async () => {
    await buildSite({ resultsDir: results, outDir: join(work, 'site') });
    const methodology = (await tree(join(work, 'site')))['methodology.html'] ?? '';
    expect(methodology).toContain(METHODOLOGY);
    expect(methodology).toContain(TOKENIZER.encoding);
    expect(methodology).toContain(TOKENIZER.version);
    for (const { band } of BAND_LIMITS) expect(methodology).toContain(`<tr class="band-${band}">`);
    expect(methodology).toContain('<td>below 1,000</td>');
    expect(methodology).toContain('<td>1,000 – 4,999</td>');
    expect(methodology).toContain('<td>30,000 or more</td>');
    for (const [status, meaning] of Object.entries(STATUS_MEANINGS)) {
      expect(methodology).toContain(`<tr id="status-${status}">`);
      expect(methodology).toContain(meaning);
    }
  });

  it('replaces an earlier build (a server gone from results leaves no page) and refuses a folder it did not write', async () => {
    const out = join(work, 'site');
    await buildSite({ resultsDir: results, outDir: out });
    const board = JSON.parse(await readFile(join(results, 'leaderboard.json'), 'utf8')) as { rows: Array<{ server: string }> };
    board.rows = board.rows.filter((row) => row.server !== 'zeta');
    await writeFile(join(results, 'leaderboard.json'), JSON.stringify(board));
    await buildSite({ resultsDir: results, outDir: out });
    const files = Object.keys(await tree(out));
    expect(files).not.toContain('servers/zeta.html');
    expect(files).not.toContain('badges/zeta.svg');
    expect(files).toContain('servers/alpha.html');

    const foreign = join(work, 'foreign');
    await mkdir(foreign);
    await writeFile(join(foreign, 'keep.txt'), 'mine');
    expect(await refusal(buildSite({ resultsDir: results, outDir: foreign }))).toMatchObject({ code: 'OUTPUT_CONFLICT' });
    expect(await readdir(foreign)).toEqual(['keep.txt']);
  });

  it('refuses a site folder inside the results or around them', async () => {
    expect((await refusal(buildSite({ resultsDir: results, outDir: results }))).code).toBe('USAGE');
    expect((await refusal(buildSite({ resultsDir: results, outDir: join(results, 'site') }))).code).toBe('USAGE');
    expect((await refusal(buildSite({ resultsDir: results, outDir: work }))).code).toBe('USAGE');
  });
});

describe('buildSite on missing or malformed results', () => {
  const out = (): string => join(work, 'site');

  it('a missing folder is a usage error', async () => {
    expect(await refusal(buildSite({ resultsDir: join(work, 'nope'), outDir: out() }))).toMatchObject({ code: 'USAGE' });
  });

  it.each([
    ['leaderboard.json missing', async () => rm(join(results, 'leaderboard.json')), /leaderboard\.json is missing/],
    ['history.csv missing', async () => rm(join(results, 'history.csv')), /history\.csv is missing/],
    ['leaderboard.json not JSON', async () => writeFile(join(results, 'leaderboard.json'), '{"method":'), /leaderboard\.json is not valid JSON/],
    ['another method', async () => editBoard((board) => (board.method = 'leaderboard/v9')), /method must be "leaderboard\/v1"/],
    ['a row with a string for tokens', async () => editBoard((board) => (row(board, 'alpha').tokens = '191')), /rows\[\d\]\.tokens must be a whole number/],
    ['an unknown status', async () => editBoard((board) => (row(board, 'alpha').status = 'great')), /rows\[\d\]\.status must be one of/],
    ['a server listed twice', async () => editBoard((board) => board.rows.push(row(board, 'alpha'))), /listed twice/],
    ['two names, one folder', async () => editBoard((board) => board.rows.push({ ...row(board, 'delta'), server: '/delta' })), /share the folder delta/],
    ['a measurement missing', async () => rm(join(results, 'gamma', 'measurement.json')), /gamma\/measurement\.json is missing/],
    ['a measurement of another server', async () => editRecord('alpha', (record) => (record.name = 'beta')), /name must be the server it is filed under/],
    ['a measurement with a bad perTool', async () => editRecord('alpha', (record) => (record.perTool = [{ name: 'x' }])), /perTool\[0\]\.tokens must be a whole number/],
    ['a measurement disagreeing on status', async () => editRecord('gamma', (record) => (record.status = 'startup-failure')), /disagrees with the leaderboard/],
    ['a badge with a script', async () => writeFile(join(results, 'badges', 'alpha.svg'), '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'), /not a plain SVG badge/],
    ['a badge that is not SVG', async () => writeFile(join(results, 'badges', 'alpha.svg'), '<html></html>'), /not a plain SVG badge/],
    ['a history row that does not parse', async () => writeFile(join(results, 'history.csv'), 'date,server,status,tools,tokens,canonical_sha256,isolation\nyesterday,a,measured,1,2,,host\n'), /history\.csv:2/],
  ])('%s is INVALID_RESULTS with the file named, and writes nothing', async (_label, damage, message) => {
    await damage();
    const error = await refusal(buildSite({ resultsDir: results, outDir: out() }));
    expect(error.code).toBe('INVALID_RESULTS');
    expect(error.message).toMatch(message);
    expect(await readdir(out()).catch(() => 'absent')).toBe('absent');
  });
});

type Json = Record<string, unknown> & { rows: Array<Record<string, unknown>> };

function row(board: Json, server: string): Record<string, unknown> {
  const found = board.rows.find((candidate) => candidate.server === server);
  if (!found) throw new Error(`no row ${server}`);
  return found;
}

async function editBoard(edit: (board: Json) => unknown): Promise<void> {
  const file = join(results, 'leaderboard.json');
  const board = JSON.parse(await readFile(file, 'utf8')) as Json;
  edit(board);
  await writeFile(file, JSON.stringify(board));
}

async function editRecord(server: string, edit: (record: Record<string, unknown>) => unknown): Promise<void> {
  const file = join(results, server, 'measurement.json');
  const record = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
  edit(record);
  await writeFile(file, JSON.stringify(record));
}
