// The server pages' "Verify in this browser" button, in Debian's Chromium: a site written by the
// built CLI (`node dist/cli/main.js site`, so run `npm run build` first), served on 127.0.0.1 by a
// static file server, each page's copied measurement.json recounted in the page. Tampering with
// one figure of a copy must show a difference for exactly that figure.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { catalogCost, measurementJson, safeSegment, type Measurement } from '../../../src/measure/index.js';
import { markedEnv, waitForNoMarkedProcesses } from '../../support/processes.js';
import { HOSTILE, writeResultsFixture, type Fixture } from './fixture.js';

const CHROMIUM = '/usr/bin/chromium';
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const CLI = join(ROOT, 'dist', 'cli', 'main.js');
/** The recount script carries o200k_base's rank table; tools/build.mjs refuses a bundle over 4 MB. */
const RECOUNT_MAX_BYTES = 4_000_000;

let work = '';
let site = '';
let base = '';
let server: Server | undefined;
let context: BrowserContext | undefined;
let fixture: Fixture;
/** Every URL the browser asked for: the page must need nothing but the site. */
const requested: string[] = [];
const problems: string[] = [];

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
};

/** A static file server for `root` on 127.0.0.1, as any static host would serve the site. */
async function serve(root: string): Promise<{ server: Server; base: string }> {
  const files = createServer((request, response) => {
    const path = normalize(decodeURIComponent(new URL(request.url ?? '/', 'http://127.0.0.1').pathname));
    const file = join(root, path);
    // The browser asks for one unasked; the site has none, and a 404 would be a console error.
    if (path === '/favicon.ico') {
      response.writeHead(204).end();
      return;
    }
    if (!file.startsWith(root + sep)) {
      response.writeHead(403).end();
      return;
    }
    readFile(file).then(
      (body) => response.writeHead(200, { 'content-type': CONTENT_TYPES[extname(file)] ?? 'application/octet-stream' }).end(body),
      () => response.writeHead(404).end(),
    );
  });
  await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
  const address = files.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return { server: files, base: `http://127.0.0.1:${address.port}/` };
}

function copyPath(name: string): string {
  return join(site, 'data', safeSegment(name), 'measurement.json');
}

function pageUrl(name: string): string {
  return `${base}servers/${safeSegment(name)}.html`;
}

async function open(url: string): Promise<Page> {
  if (!context) throw new Error('the browser did not start');
  const page = await context.newPage();
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') problems.push(`console ${message.type()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('request', (request) => requested.push(request.url()));
  await page.goto(url, { waitUntil: 'load' });
  return page;
}

interface ShownCheck {
  figure: string;
  tool: string | null;
  state: string | null;
  recorded: string;
  recounted: string;
  verdict: string;
}

/** Presses verify and waits for the outcome; returns it, the status line and every row shown. */
async function pressVerify(page: Page): Promise<{ outcome: string | null; status: string; checks: ShownCheck[] }> {
  await page.click('#verify-button');
  // The first press compiles a 2.8 MB script and builds the encoder: seconds, more on a loaded machine.
  await page.waitForSelector('#browser-verify[data-outcome]', { timeout: 120_000 });
  const rows = page.locator('#verify-checks tbody tr');
  const checks: ShownCheck[] = [];
  for (let index = 0; index < (await rows.count()); index += 1) {
    const row = rows.nth(index);
    const cells = await row.locator('td').allTextContents();
    checks.push({
      figure: (await row.getAttribute('data-figure')) ?? '',
      tool: await row.getAttribute('data-tool'),
      state: await row.getAttribute('data-state'),
      recorded: cells[2] ?? '',
      recounted: cells[3] ?? '',
      verdict: cells[4] ?? '',
    });
  }
  return {
    outcome: await page.getAttribute('#browser-verify', 'data-outcome'),
    status: (await page.textContent('#verify-status')) ?? '',
    checks,
  };
}

/** Rewrites a server's copied measurement.json with `change` applied, for one test. */
async function tamper(name: string, change: (record: Record<string, unknown>) => void): Promise<void> {
  const record = JSON.parse(await readFile(copyPath(name), 'utf8')) as Record<string, unknown>;
  change(record);
  await writeFile(copyPath(name), `${JSON.stringify(record, null, 2)}\n`);
}

function alpha(): Measurement {
  const record = fixture.measurements.get('alpha');
  if (!record) throw new Error('the fixture has no alpha');
  return record;
}

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y --no-install-recommends chromium`);
  if (!existsSync(join(ROOT, 'dist', 'site', 'recount.js'))) throw new Error('dist/site/recount.js is missing: run npm run build first');
  work = await mkdtemp(join(tmpdir(), 'mcpctx-verify-browser-'));
  fixture = await writeResultsFixture(join(work, 'results'));
  site = join(work, 'site');
  execFileSync(process.execPath, [CLI, 'site', join(work, 'results'), '--out', site], { env: markedEnv({ PATH: process.env.PATH ?? '/usr/bin:/bin' }), stdio: 'pipe' });
  ({ server, base } = await serve(site));
  context = await chromium.launchPersistentContext(join(work, 'profile'), {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    env: markedEnv({ PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: work }),
  });
}, 120_000);

afterEach(async () => {
  for (const page of context?.pages() ?? []) await page.close();
  // Each test leaves the copies as the CLI wrote them.
  for (const record of fixture.measurements.values()) {
    if (record.rawToolsCapture !== null) await writeFile(copyPath(record.name), measurementJson(record));
  }
  expect(problems.splice(0)).toEqual([]);
});

afterAll(async () => {
  try {
    await context?.close();
    await new Promise((resolve) => server?.close(resolve));
  } finally {
    const survivors = await waitForNoMarkedProcesses(10_000);
    if (work !== '') await rm(work, { recursive: true, force: true });
    expect(survivors).toEqual([]);
  }
});

describe('verify in the browser', () => {
  it('the site copies a recount script of bounded size, loaded only when verify is pressed', async () => {
    const { size } = await stat(join(site, 'verify', 'recount.js'));
    expect(size).toBeLessThanOrEqual(RECOUNT_MAX_BYTES);
    // The table itself is most of it: a bundle without it would count nothing.
    expect(size).toBeGreaterThan(1_000_000);
    expect(await readFile(join(site, 'verify', 'recount.js'))).toEqual(await readFile(join(ROOT, 'dist', 'site', 'recount.js')));
    requested.length = 0;
    const page = await open(pageUrl('alpha'));
    expect(requested.filter((url) => url.endsWith('/recount.js'))).toEqual([]);
    await pressVerify(page);
    expect(requested.filter((url) => url.endsWith('/verify/recount.js'))).toHaveLength(1);
    // The first recount of the run: see pressVerify.
  }, 150_000);

  it('checks every figure of a measured server, and asks for nothing outside the site (no CDN)', async () => {
    requested.length = 0;
    const page = await open(pageUrl('alpha'));
    const { outcome, status, checks } = await pressVerify(page);
    expect(outcome).toBe('verified');
    const record = alpha();
    const tools = (record.perTool ?? []).map((tool) => tool.name);
    expect(tools).toHaveLength(3);
    expect(checks.map((check) => [check.figure, check.tool])).toEqual([
      ['totalTokens', null],
      ['toolCount', null],
      ['canonicalSha256', null],
      ['canonicalBytes', null],
      ['sessionStart.namesTokens', null],
      ['sessionStart.instructionsTokens', null],
      ['sessionStart.total', null],
      // The fixture's first tool has an output schema, so it alone has that figure.
      ...(record.perTool ?? []).flatMap((tool) =>
        [...['name', 'tokens', 'descriptionTokens', 'inputSchemaTokens'], ...(tool.outputSchemaTokens === undefined ? [] : ['outputSchemaTokens'])].map((field) => [`perTool.${field}`, tool.name]),
      ),
    ]);
    expect(checks.filter((check) => check.figure === 'perTool.outputSchemaTokens')).toHaveLength(1);
    expect(checks.filter((check) => check.state !== 'match')).toEqual([]);
    expect(checks.every((check) => check.verdict === '✓')).toBe(true);
    const shown = (figure: string): string | undefined => checks.find((check) => check.figure === figure)?.recounted;
    expect(shown('totalTokens')).toBe(String(record.totalTokens));
    expect(shown('canonicalSha256')).toBe(record.canonicalSha256);
    expect(shown('canonicalBytes')).toBe(String(record.canonicalBytes));
    expect(status).toContain(`all ${checks.length} figures checked re-derive from rawToolsCapture`);
    // The fixture's record names another gpt-tokenizer version: the page says which one counted.
    expect(status).toContain('The record names gpt-tokenizer 3.0.0');
    expect(requested.length).toBeGreaterThan(0);
    expect(requested.filter((url) => !url.startsWith(base))).toEqual([]);
  });

  it('recounts hostile names and descriptions as text: verified, and nothing of them runs', async () => {
    const page = await open(pageUrl(HOSTILE));
    const { outcome, checks } = await pressVerify(page);
    expect(outcome).toBe('verified');
    expect(checks.some((check) => check.tool?.startsWith('<b onmouseover'))).toBe(true);
    expect(await page.evaluate(() => (globalThis as { __pwned?: unknown }).__pwned)).toBeUndefined();
  });

  it("shows the difference for exactly the tool's descriptionTokens that was changed", async () => {
    const record = alpha();
    const tool = record.perTool?.[1];
    if (!tool) throw new Error('alpha has no second tool');
    await tamper('alpha', (copy) => {
      ((copy.perTool as Array<Record<string, unknown>>)[1] as Record<string, unknown>).descriptionTokens = tool.descriptionTokens + 5;
    });
    const { outcome, checks } = await pressVerify(await open(pageUrl('alpha')));
    expect(outcome).toBe('differs');
    expect(checks.filter((check) => check.state !== 'match')).toEqual([
      {
        figure: 'perTool.descriptionTokens',
        tool: tool.name,
        state: 'differs',
        recorded: String(tool.descriptionTokens + 5),
        recounted: String(tool.descriptionTokens),
        verdict: '✗ recount is -5',
      },
    ]);
  });

  it('shows the difference for exactly totalTokens when only it was changed', async () => {
    const total = alpha().totalTokens ?? 0;
    await tamper('alpha', (copy) => {
      copy.totalTokens = total - 12;
    });
    const { outcome, status, checks } = await pressVerify(await open(pageUrl('alpha')));
    expect(outcome).toBe('differs');
    expect(status).toContain('1 of');
    expect(checks.filter((check) => check.state !== 'match').map((check) => [check.figure, check.verdict])).toEqual([['totalTokens', '✗ recount is +12']]);
  });

  it('shows the hash differing when the capture bytes change (same length, same tokens)', async () => {
    const record = alpha();
    const changed = structuredClone(record.rawToolsCapture) as Array<Record<string, unknown>>;
    const first = changed[0] as Record<string, unknown>;
    first.description = String(first.description).replace('Does thing 0.', 'Does thing 7.');
    // The precondition, by the CLI's own counting: only the hash moves.
    const before = catalogCost(record.rawToolsCapture ?? [], record.serverInstructions);
    const after = catalogCost(changed, record.serverInstructions);
    expect(after.canonicalSha256).not.toBe(before.canonicalSha256);
    expect({ ...after, canonicalSha256: '' }).toEqual({ ...before, canonicalSha256: '' });
    await tamper('alpha', (copy) => {
      copy.rawToolsCapture = changed;
    });
    const { outcome, checks } = await pressVerify(await open(pageUrl('alpha')));
    expect(outcome).toBe('differs');
    expect(checks.filter((check) => check.state !== 'match')).toEqual([
      { figure: 'canonicalSha256', tool: null, state: 'differs', recorded: record.canonicalSha256, recounted: after.canonicalSha256, verdict: '✗ differs' },
    ]);
  });

  it('checks an output schema figure where a tool has one', async () => {
    const capture = [
      ...(alpha().rawToolsCapture ?? []),
      { name: 'with_output', description: 'Returns a count.', inputSchema: { type: 'object' }, outputSchema: { type: 'object', properties: { count: { type: 'integer' } } } },
    ];
    const cost = catalogCost(capture, alpha().serverInstructions);
    await tamper('alpha', (copy) => {
      Object.assign(copy, { ...cost, rawToolsCapture: capture });
    });
    const { outcome, checks } = await pressVerify(await open(pageUrl('alpha')));
    expect(outcome).toBe('verified');
    const output = checks.filter((check) => check.figure === 'perTool.outputSchemaTokens');
    expect(output.filter((check) => check.tool === 'with_output').map((check) => [check.tool, check.recounted, check.state])).toEqual([['with_output', String(cost.perTool[3]?.outputSchemaTokens), 'match']]);
  });

  it('says a redacted capture cannot be re-derived, and checks nothing', async () => {
    await tamper('alpha', (copy) => {
      copy.captureRedaction = { strings: 2, secrets: ['API_KEY'] };
    });
    const page = await open(pageUrl('alpha'));
    const { outcome, status, checks } = await pressVerify(page);
    expect(outcome).toBe('not-rederivable');
    expect(status).toContain('not re-derivable: 2 string(s) of the capture held a secret and were redacted');
    expect(checks).toEqual([]);
  });

  it('says why when the page was opened from file://, where fetch does not work', async () => {
    const page = await open(pathToFileURL(join(site, 'servers', 'alpha.html')).href);
    const { outcome, status } = await pressVerify(page);
    expect(outcome).toBe('error');
    expect(status).toContain('opened from a file (file://)');
    expect(status).toContain('python3 -m http.server');
  });
});
