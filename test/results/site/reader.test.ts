// Issue 34: what a reader of the site needs and the review found missing: every part of a tool's
// cost, the full text and schemas, why a server failed, its package, the sweep date, regressions,
// badge snippets and the data itself.
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isMcpctxError } from '../../../src/errors/index.js';
import { safeSegment, type Measurement } from '../../../src/measure/index.js';
import { STATUS_MEANINGS } from '../../../src/results/_model.js';
import { buildSite } from '../../../src/results/site/index.js';
import { npmPackageOf } from '../../../src/results/site/_package.js';
import { DESCRIPTION_WORD, HOSTILE, HUGE_PROPERTIES, LISTED_TOOL, STDERR_TAIL, SWEEP_DATE, writeResultsFixture, type Fixture } from './fixture.js';

let work: string;
let fixture: Fixture;
let site: Record<string, string>;

/** Every file under `dir` with its bytes, by relative path. */
async function tree(dir: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) files[relative(dir, join(entry.parentPath, entry.name))] = await readFile(join(entry.parentPath, entry.name), 'utf8');
  }
  return files;
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'mcpctx-site-reader-'));
  fixture = await writeResultsFixture(join(work, 'results'));
  await buildSite({ resultsDir: join(work, 'results'), outDir: join(work, 'site') });
  site = await tree(join(work, 'site'));
});

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

const page = (server: string): string => site[`servers/${safeSegment(server)}.html`] ?? '';
const record = (server: string): Measurement => fixture.measurements.get(server) as Measurement;
const escaped = (value: string): string => value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
/** The index's row of a server. */
const indexRow = (server: string): string => (site['index.html'] ?? '').split('\n').find((line) => line.startsWith(`<tr data-name="${escaped(server.toLowerCase())}`)) ?? '';

describe('a tool in four parts', () => {
  it('splits each bar and row into description, input schema, output schema and the rest, in numbers too', () => {
    const alpha = page('alpha');
    const [withOutput, withoutOutput] = record('alpha').perTool ?? [];
    expect(withOutput?.outputSchemaTokens).toBeGreaterThan(0);
    expect(withoutOutput?.outputSchemaTokens).toBeUndefined();
    for (const label of ['description', 'input schema', 'output schema', 'name and the rest']) expect(alpha).toContain(`</span> ${label}`);
    expect(alpha).toContain('<th scope="col" data-type="number"><button type="button">Output schema</button></th>');
    const tool = withOutput as NonNullable<typeof withOutput>;
    const rest = tool.tokens - tool.descriptionTokens - tool.inputSchemaTokens - (tool.outputSchemaTokens ?? 0);
    const row = alpha.split('\n').find((line) => line.includes(`<code>${tool.name}</code></a></td>`)) ?? '';
    expect(row).toContain(`<td data-value="${tool.outputSchemaTokens}">${tool.outputSchemaTokens}</td><td data-value="${rest}">${rest}</td>`);
    // The bar says its numbers; the output part has a width.
    expect(row).toContain(`aria-label="${tool.name}: description ${tool.descriptionTokens}, input schema ${tool.inputSchemaTokens}, output schema ${tool.outputSchemaTokens}, name and the rest ${rest}"`);
    expect(row).toMatch(/<rect class="part-output" x="[\d.]+" width="(?!0\.0")[\d.]+"/);
  });
});

describe('full descriptions and schemas on demand', () => {
  it('shows every description whole and each schema pretty-printed, escaped, in closed details', () => {
    const alpha = page('alpha');
    const captured = record('alpha').rawToolsCapture as Array<{ name: string; description: string; inputSchema: unknown; outputSchema?: unknown }>;
    const long = captured[1] as (typeof captured)[number];
    expect(long.description.length).toBeGreaterThan(400);
    expect(alpha).toContain(`<p class="full-description">${escaped(long.description)}</p>`);
    expect(alpha).toContain(`<details class="tool" id="tool-1">`);
    expect(alpha).toContain(`<pre class="schema"><code>${escaped(JSON.stringify(captured[0]?.outputSchema, null, 2))}</code></pre>`);
    expect(alpha).toContain(`<a href="#tool-1"><code>${long.name}</code></a>`);
    // The index stays light: no schema, no full description.
    expect(site['index.html']).not.toContain('"properties"');
    expect(site['index.html']).not.toContain(DESCRIPTION_WORD);
    const hostile = page(HOSTILE);
    expect(hostile).toContain(escaped(`"description": "${HOSTILE.replace(/"/g, '\\"')}"`));
    expect(hostile).not.toContain('<img src=x');
  });

  it('cuts a huge schema only with a sentence saying so and a link to the record', () => {
    const hostile = page(HOSTILE);
    const segment = safeSegment(HOSTILE);
    expect(hostile).toMatch(new RegExp(`Shown cut at 100,000 of [\\d,]+ characters; the whole schema is in <a href="\\.\\./data/${segment}/measurement\\.json">measurement\\.json</a>`));
    expect(hostile).toContain('&quot;field_0&quot;');
    expect(hostile).not.toContain(`&quot;field_${HUGE_PROPERTIES - 1}&quot;`);
  });
});

describe('why a server failed', () => {
  it('says the status meaning, the note and the stderr tail on the index, short, escaped', () => {
    const epsilon = indexRow('epsilon');
    expect(epsilon).toContain(STATUS_MEANINGS['startup-failure']);
    expect(epsilon).toContain('exited with code 1 before initialize');
    expect(epsilon).toContain('node exited with code 1');
    expect(epsilon).toContain('&lt;/pre&gt;&lt;script&gt;window.__pwned=3');
    expect(epsilon).not.toContain('npm warn exec installing'); // the short tail is the last lines
    expect(indexRow('gamma')).toContain('no stderr recorded');
    expect(indexRow('gamma')).toContain(STATUS_MEANINGS.timeout);
    expect(indexRow('alpha')).not.toContain('class="why"');
  });

  it('shows the whole tail on the server page, escaped, or says there is none', () => {
    const epsilon = page('epsilon');
    expect(epsilon).toContain(`<pre id="stderr"><code>${escaped(STDERR_TAIL)}</code></pre>`);
    expect(epsilon).not.toContain('<script>window.__pwned=3');
    expect(epsilon).toContain(`<h2>Why it has no number</h2>`);
    expect(page('gamma')).toContain('<p id="stderr" class="muted">no stderr recorded</p>');
    expect(page('zeta')).toContain('no stderr recorded (the record has no stderr field)');
  });

  it('never says a failed history row is in the trend', () => {
    const epsilon = page('epsilon');
    expect(epsilon).toMatch(/<tr><td>2026-11-23<\/td><td>measured<\/td>.*<td>yes<\/td><\/tr>/);
    expect(epsilon).toMatch(/<tr class="outside"><td>2026-11-30<\/td><td>startup-failure<\/td>.*<td>no: startup-failure, no number \(a gap in the trend\)<\/td><\/tr>/);
    for (const html of Object.values(site)) expect(html).not.toMatch(/<td>startup-failure<\/td>(?:<td>[^<]*<\/td>|<td><[^>]+>[^<]*<\/[^>]+><\/td>)*<td>yes<\/td>/);
  });
});

describe('the package', () => {
  it('names the npm package and version with a link, and what the server reports', () => {
    const alpha = page('alpha');
    expect(alpha).toContain('<a id="npm-link" href="https://www.npmjs.com/package/alpha-mcp/v/1.0.0"><code>alpha-mcp</code></a> <code id="package-version">1.0.0</code>');
    expect(alpha).toContain('the server reports itself as</span> <code>fixture</code> version <code id="server-version">1.0.0</code>');
    expect(indexRow('alpha')).toContain('<span class="package">alpha-mcp@1.0.0</span>');
    const remote = page('beta-remote');
    expect(remote).not.toContain('npm-link');
    expect(remote).toContain('not launched as an npm package');
  });
});

describe('every page', () => {
  it('carries the sweep date and the times its measurements span, and links the regressions page', () => {
    const pages = Object.entries(site).filter(([path]) => path.endsWith('.html'));
    expect(pages.length).toBe(3 + 7);
    for (const [path, html] of pages) {
      expect(html, path).toContain(`<p class="sweep" id="sweep-date">Sweep of <time datetime="${SWEEP_DATE}">${SWEEP_DATE}</time>, measured 06:00–06:05 UTC (6 of 7 servers; the others keep their last record, see each row&#39;s date)</p>`);
      expect(html, path).toMatch(/<a href="(\.\.\/)?regressions\.html">Regressions<\/a>/);
      expect(html, path).toMatch(/<a href="(\.\.\/)?leaderboard\.json" download>leaderboard\.json<\/a>, <a href="(\.\.\/)?history\.csv" download>history\.csv<\/a>/);
    }
  });

  it('offers leaderboard.json and history.csv byte for byte', async () => {
    expect(site['leaderboard.json']).toBe(await readFile(join(work, 'results', 'leaderboard.json'), 'utf8'));
    expect(site['history.csv']).toBe(await readFile(join(work, 'results', 'history.csv'), 'utf8'));
  });
});

describe('the regressions page', () => {
  it('lists servers failing after a measurement first, then each movement with window, delta and mechanism', () => {
    const html = site['regressions.html'] ?? '';
    const failed = html.indexOf('id="failed-after-measured"');
    const moved = html.indexOf('id="movements"');
    expect(failed).toBeGreaterThan(-1);
    expect(moved).toBeGreaterThan(failed);
    expect(html).toContain('<a href="servers/epsilon.html">epsilon</a>');
    expect(html).toContain('<td data-label="Failing since">2026-11-30</td><td data-label="Last number">2,000 tokens, 3 tools on 2026-11-23</td>');
    const alpha = record('alpha').totalTokens as number;
    const delta = alpha - 170;
    expect(html).toContain(
      `<td class="name" data-label="Server"><a href="servers/alpha.html">alpha</a></td><td data-label="Window">2026-11-23 → 2026-11-30</td><td data-label="Tokens">170 → ${alpha.toLocaleString('en-US')}</td><td data-label="Change" class="delta">+${delta.toLocaleString('en-US')} (+${((delta / 170) * 100).toFixed(1)}%)</td><td data-label="Mechanism">`,
    );
    // beta-remote's host row is another isolation: its movement starts from the docker rows.
    expect(html).toContain('<td data-label="Window">2026-11-23 → 2026-11-30</td><td data-label="Tokens">5,300 → ');
    expect(html).not.toContain('900 → ');
    // The cost report's own words: the fall's count of failed sweeps, each movement's summary, and
    // what else changed, said unavailable where the fixture's sides have no launch on record.
    expect(html).toContain('<td data-label="Failed sweeps">1</td>');
    expect(html).toContain(`<span class="muted">+${delta.toLocaleString('en-US')}: heavier tools, read from the totals (no per-tool breakdown)</span>`);
    expect(html).toContain('<td data-label="Also changed">launch and server version not on record for both sides</td>');
  });
});

describe('badge snippets', () => {
  it('gives Markdown and HTML as visible text, relative without a base address', () => {
    const alpha = page('alpha');
    expect(alpha).toContain(`<pre><code id="snippet-markdown">${escaped('[![context cost of alpha](badges/alpha.svg)](servers/alpha.html)')}</code></pre>`);
    expect(alpha).toContain(`<pre><code id="snippet-html">${escaped('<a href="servers/alpha.html"><img src="badges/alpha.svg" alt="context cost of alpha"></a>')}</code></pre>`);
    expect(alpha).toContain('<button type="button" class="copy" data-copy="snippet-markdown" hidden>Copy</button>');
    // A hostile name is escaped inside the HTML snippet, and again for the page.
    const hostile = page(HOSTILE);
    expect(hostile).toContain(escaped(`alt="context cost of ${escaped(HOSTILE)}"`));
  });

  it('uses absolute addresses under --base-url, and refuses an address that is not http(s)', async () => {
    const out = join(work, 'based');
    await buildSite({ resultsDir: join(work, 'results'), outDir: out, baseUrl: 'https://example.org/mcp?x=1' });
    const alpha = await readFile(join(out, 'servers', 'alpha.html'), 'utf8');
    expect(alpha).toContain(escaped('[![context cost of alpha](https://example.org/mcp/badges/alpha.svg)](https://example.org/mcp/servers/alpha.html)'));
    const error = await buildSite({ resultsDir: join(work, 'results'), outDir: join(work, 'bad'), baseUrl: 'javascript:alert(1)' }).catch((caught: unknown) => caught);
    expect(isMcpctxError(error) && error.code).toBe('USAGE');
  });
});

describe('search data', () => {
  it('holds each server\'s tool names and descriptions in search.js, with no markup character left raw', () => {
    const script = site['search.js'] ?? '';
    const literal = script.slice(script.indexOf('JSON.parse(') + 'JSON.parse('.length, script.lastIndexOf(');'));
    const data = JSON.parse(JSON.parse(literal) as string) as Record<string, string>;
    expect(data['beta-remote']).toContain(LISTED_TOOL);
    expect(data.alpha).toContain(DESCRIPTION_WORD);
    expect(script).not.toContain('<');
    expect(data[safeSegment(HOSTILE)]).toContain('</td></tr></table>');
  });
});

describe('reading the package from a launch', () => {
  const stdio = (command: string, ...args: string[]) => ({ kind: 'stdio' as const, command, args, envNames: [] });
  it.each([
    [stdio('npx', '-y', '@scope/server@2.0.0-rc.1', '--flag'), { name: '@scope/server', version: '2.0.0-rc.1', pinned: true, url: 'https://www.npmjs.com/package/@scope/server/v/2.0.0-rc.1' }],
    [stdio('/usr/bin/npx', '--yes', 'plain-server'), { name: 'plain-server', version: null, pinned: false, url: 'https://www.npmjs.com/package/plain-server' }],
    [stdio('npx', '-y', 'tagged@latest'), { name: 'tagged', version: 'latest', pinned: false, url: 'https://www.npmjs.com/package/tagged' }],
    [stdio('npx', '--package=@a/b@1.2.3', 'b-bin'), { name: '@a/b', version: '1.2.3', pinned: true, url: 'https://www.npmjs.com/package/@a/b/v/1.2.3' }],
  ])('%j names its package', (launch, expected) => {
    expect(npmPackageOf(launch)).toEqual(expected);
  });

  it.each([
    [stdio('node', 'server.js')],
    [stdio('npx', '-y', './local-folder')],
    [stdio('npx', '-y', 'Has<Markup>@1.0.0')],
    [stdio('npx', '--registry', 'https://elsewhere', 'pkg@1.0.0')],
    [stdio('docker', 'run', '-i', 'image')],
    [{ kind: 'remote' as const, url: 'https://example.com/mcp', headerNames: [], envNames: [] }],
  ])('%j names none', (launch) => {
    expect(npmPackageOf(launch)).toBeNull();
  });
});
