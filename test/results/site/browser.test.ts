// Acceptance 6: the built site in headless Chromium (Debian's, driven by playwright-core), opened
// over file:// exactly as a user opens it after `mcpctx site`.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildSite } from '../../../src/results/site/index.js';
import { markedEnv, waitForNoMarkedProcesses } from '../../support/processes.js';
import { DESCRIPTION_WORD, HOSTILE, HOSTILE_TOOL, LISTED_TOOL, SPECS, writeResultsFixture, type Fixture } from './fixture.js';

const CHROMIUM = '/usr/bin/chromium';
const SCREENSHOTS = fileURLToPath(new URL('../../../test-output/site/', import.meta.url));

let work = '';
let profile = '';
let context: BrowserContext | undefined;
let fixture: Fixture;
let indexUrl = '';
/** Console errors and page errors of every page opened; each test must leave it empty. */
const problems: string[] = [];

async function open(url: string): Promise<Page> {
  if (!context) throw new Error('the browser did not start');
  const page = await context.newPage();
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') problems.push(`console ${message.type()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('requestfailed', (request) => problems.push(`request failed: ${request.url()}`));
  await page.goto(url, { waitUntil: 'load' });
  return page;
}

/** An image as the page sees it (this project compiles without DOM types). */
type ImageElement = { complete: boolean; naturalWidth: number };

/** Server names of the leaderboard rows shown, top to bottom. */
async function shownServers(page: Page): Promise<string[]> {
  return page.locator('#leaderboard tbody tr:not([hidden]) td:nth-child(2) a').allTextContents();
}

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: the site tests need Debian's chromium, which .ci/run installs (apt-get install -y --no-install-recommends chromium)`);
  }
  work = await mkdtemp(join(tmpdir(), 'mcpctx-site-browser-'));
  profile = join(work, 'profile');
  fixture = await writeResultsFixture(join(work, 'results'));
  indexUrl = (await buildSite({ resultsDir: join(work, 'results'), outDir: join(work, 'site') })).indexUrl;
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    env: markedEnv({ PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: work }),
    viewport: { width: 1360, height: 800 },
  });
  await mkdir(SCREENSHOTS, { recursive: true });
});

afterEach(async () => {
  for (const page of context?.pages() ?? []) await page.close();
  const seen = problems.splice(0);
  expect(seen).toEqual([]);
});

afterAll(async () => {
  try {
    await context?.close();
  } finally {
    // No chromium may outlive the file: neither by its profile folder nor by the test mark.
    const left = profile === '' ? '' : await chromiumOf(profile);
    const survivors = await waitForNoMarkedProcesses(10_000);
    if (work !== '') await rm(work, { recursive: true, force: true });
    expect(left).toBe('');
    expect(survivors).toEqual([]);
  }
});

/** Pids of processes started with this profile, after waiting (bounded) for them to go. */
async function chromiumOf(profileDir: string): Promise<string> {
  const find = (): string => {
    try {
      return execFileSync('pgrep', ['-f', `user-data-dir=${profileDir}`], { encoding: 'utf8' }).trim();
    } catch {
      return ''; // pgrep exits 1 when nothing matches
    }
  };
  for (let tries = 0; tries < 100; tries += 1) {
    if (find() === '') return '';
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return find();
}

describe('the leaderboard in Chromium', () => {
  it('sorts by tokens as numbers, both directions, rows without tokens last', async () => {
    const page = await open(indexUrl);
    const withTokens = fixture.leaderboard.rows.filter((row) => row.tokens !== null);
    const ascending = [...withTokens].sort((a, b) => (a.tokens as number) - (b.tokens as number)).map((row) => row.server);
    const without = fixture.leaderboard.rows.filter((row) => row.tokens === null).map((row) => row.server);
    const tokens = page.locator('#leaderboard thead th', { hasText: 'Tokens' }).locator('button');

    await page.locator('#leaderboard thead th', { hasText: 'Server' }).locator('button').click();
    const byName = await shownServers(page);
    expect(byName).toEqual([...byName].sort((a, b) => (a.toLowerCase() < b.toLowerCase() ? -1 : 1)));

    await tokens.click();
    const up = await shownServers(page);
    expect(up.slice(0, ascending.length)).toEqual(ascending);
    expect(new Set(up.slice(ascending.length))).toEqual(new Set(without));
    await expect.poll(() => page.locator('#leaderboard thead th[aria-sort="ascending"]').textContent()).toBe('Tokens');

    await tokens.click();
    const down = await shownServers(page);
    expect(down.slice(0, ascending.length)).toEqual([...ascending].reverse());
    expect(new Set(down.slice(ascending.length))).toEqual(new Set(without));
    await page.screenshot({ path: join(SCREENSHOTS, 'leaderboard.png'), fullPage: true });
  });

  it('filters rows by name', async () => {
    const page = await open(indexUrl);
    await page.locator('#filter').fill('ALPH');
    expect(await shownServers(page)).toEqual(['alpha']);
    expect(await page.locator('#filter-count').textContent()).toBe(`1 of ${SPECS.length}`);
    await page.locator('#filter').fill('');
    expect(await shownServers(page)).toHaveLength(SPECS.length);
  });

  it('renders every badge it shows, and the hostile name only as text', async () => {
    const page = await open(indexUrl);
    const badges = page.locator('#leaderboard img.badge');
    expect(await badges.count()).toBe(SPECS.filter((spec) => spec.badge !== false).length);
    const widths = await badges.evaluateAll((images) => images.map((image) => ((image as unknown as ImageElement).complete ? (image as unknown as ImageElement).naturalWidth : 0)));
    expect(widths.every((width) => width > 0)).toBe(true);
    expect(await shownServers(page)).toContain(HOSTILE);
    expect(await page.evaluate(() => (globalThis as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await page.locator('main img:not(.badge), main script, main b').count()).toBe(0);
  });
});

describe('a server page in Chromium', () => {
  it('opens from the table and shows its tools, launch, isolation and verify command', async () => {
    const page = await open(indexUrl);
    await page.locator('#leaderboard a', { hasText: 'beta-remote' }).click();
    await page.waitForURL(/servers\/beta-remote\.html$/);
    expect(await page.locator('#server-name').textContent()).toBe('beta-remote');
    const tools = fixture.measurements.get('beta-remote')?.perTool?.map((tool) => tool.name) ?? [];
    expect(tools.length).toBe(12);
    expect(await page.locator('#tools tbody td:first-child').allTextContents()).toEqual(tools);
    expect(await page.locator('dl.facts').textContent()).toContain('https://mcp.example.com/mcp?team=a&b=<c>');
    expect(await page.locator('#verify-command').textContent()).toBe('node dist/cli/main.js verify measurement.json');
    // The record the command verifies is the one the page links: there, byte for byte.
    const record = await page.locator('main a', { hasText: 'measurement.json' }).evaluate((link) => (link as unknown as { href: string }).href);
    expect(await readFile(fileURLToPath(record), 'utf8')).toBe(await readFile(join(work, 'results', 'beta-remote', 'measurement.json'), 'utf8'));
    const badge = page.locator('h1 img.badge');
    expect(await badge.evaluate((image) => ((image as unknown as ImageElement).complete ? (image as unknown as ImageElement).naturalWidth : 0))).toBeGreaterThan(0);
    await page.screenshot({ path: join(SCREENSHOTS, 'server.png'), fullPage: true });
  });

  it('shows a hostile tool name and description as text', async () => {
    const page = await open(indexUrl);
    await page.locator('#leaderboard a', { hasText: HOSTILE }).click();
    await page.waitForURL(/servers\/.*\.html$/);
    expect(await page.locator('#server-name').textContent()).toBe(HOSTILE);
    expect(await page.locator('#tools tbody td:first-child').first().textContent()).toBe(HOSTILE_TOOL);
    expect(await page.locator('#tools tbody td.description').first().textContent()).toContain(`</td></tr></table>${HOSTILE}`);
    expect(await page.evaluate(() => (globalThis as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await page.locator('main b, main script, main img:not(.badge)').count()).toBe(0);
  });

  it('opens the methodology page without errors', async () => {
    const page = await open(indexUrl);
    await page.locator('nav a', { hasText: 'Methodology' }).click();
    await page.waitForURL(/methodology\.html$/);
    expect(await page.locator('#statuses tbody tr').count()).toBeGreaterThan(0);
  });
  it('leads from a server page\'s footer to the verify command of the methodology page', async () => {
    const page = await open(indexUrl);
    await page.locator('#leaderboard a', { hasText: 'alpha' }).click();
    await page.waitForURL(/servers\/alpha\.html$/);
    await page.locator('footer a', { hasText: 'how' }).click();
    await page.waitForURL(/methodology\.html#verify$/);
    expect(await page.locator('#verify-command').textContent()).toBe('node dist/cli/main.js verify path/to/measurement.json');
  });
});

/** A rectangle as the page measures it (no DOM types in this project). */
type Box = { left: number; right: number; top: number; bottom: number };

/** The page's own width against the viewport's: more means the reader must scroll sideways. */
async function pageWidth(page: Page): Promise<{ scroll: number; viewport: number }> {
  return page.evaluate(() => {
    const root = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document.documentElement;
    return { scroll: root.scrollWidth, viewport: root.clientWidth };
  });
}

describe('issue 34 in Chromium', () => {
  it('keeps every Tokens cell inside a 375 px viewport, with no sideways scroll of any page', async () => {
    const page = await open(indexUrl);
    await page.setViewportSize({ width: 375, height: 800 });
    const cells = page.locator('#leaderboard tbody td:nth-child(6)');
    expect(await cells.count()).toBe(SPECS.length);
    const boxes = await cells.evaluateAll((elements) =>
      elements.map((element) => {
        const rect = (element as unknown as { getBoundingClientRect(): Box }).getBoundingClientRect();
        return { left: rect.left, right: rect.right };
      }),
    );
    for (const box of boxes) {
      expect(box.left).toBeGreaterThanOrEqual(0);
      expect(box.right).toBeLessThanOrEqual(375);
    }
    expect(await cells.first().isVisible()).toBe(true);
    expect(await pageWidth(page)).toEqual({ scroll: 375, viewport: 375 });
    for (const path of ['servers/epsilon.html', 'servers/alpha.html', 'regressions.html']) {
      await page.goto(new URL(path, indexUrl).href);
      expect(await pageWidth(page), path).toEqual({ scroll: 375, viewport: 375 });
    }
  });

  it('finds a server by a tool it lists or a word of a description, not only by its name', async () => {
    const page = await open(indexUrl);
    await page.locator('#filter').fill(LISTED_TOOL);
    await expect.poll(() => shownServers(page)).toEqual(['beta-remote']);
    await page.locator('#filter').fill(DESCRIPTION_WORD.toUpperCase());
    await expect.poll(() => shownServers(page)).toEqual(['alpha']);
    await page.locator('#filter').fill('alpha-mcp');
    await expect.poll(() => shownServers(page)).toEqual(['alpha']);
    await page.locator('#filter').fill('');
    expect(await shownServers(page)).toHaveLength(SPECS.length);
  });

  it('copies a badge snippet with its button, and opens a tool definition from its name', async () => {
    if (!context) throw new Error('the browser did not start');
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    const page = await open(new URL('servers/alpha.html', indexUrl).href);
    const snippet = await page.locator('#snippet-markdown').textContent();
    expect(snippet).toBe('[![context cost of alpha](badges/alpha.svg)](servers/alpha.html)');
    await page.locator('button[data-copy="snippet-markdown"]').click();
    await expect.poll(() => page.locator('#snippet-markdown ~ output, .snippet output').first().textContent()).toBe('Copied');
    expect(await page.evaluate(() => (globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }).navigator.clipboard.readText())).toBe(snippet);

    expect(await page.locator('#tool-1').getAttribute('open')).toBeNull();
    await page.locator('#tools a[href="#tool-1"]').click();
    await expect.poll(() => page.locator('#tool-1').getAttribute('open')).toBe('');
    expect(await page.locator('#tool-1 .full-description').textContent()).toContain(DESCRIPTION_WORD);
  });

  it('shows a failed server\'s reason and stderr, and the regressions page from the nav', async () => {
    const page = await open(indexUrl);
    await page.locator('#leaderboard a', { hasText: 'epsilon' }).click();
    await page.waitForURL(/servers\/epsilon\.html$/);
    expect(await page.locator('#stderr').textContent()).toContain('</pre><script>window.__pwned=3</script>');
    expect(await page.evaluate(() => (globalThis as { __pwned?: number }).__pwned)).toBeUndefined();
    await page.locator('nav a', { hasText: 'Regressions' }).click();
    await page.waitForURL(/regressions\.html$/);
    expect(await page.locator('#failed tbody td.name').allTextContents()).toEqual(['epsilon']);
    expect(await page.locator('#movements-table tbody td.name').allTextContents()).toContain('alpha');
    await page.screenshot({ path: join(SCREENSHOTS, 'regressions.png'), fullPage: true });
  });
});
