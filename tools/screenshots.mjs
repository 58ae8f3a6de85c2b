// `npm run screenshots`: screenshots of a built site with Debian's Chromium, for the docs.
//
//   node tools/screenshots.mjs [--site docs/leaderboard/site] [--out docs/leaderboard] [--server NAME] [--verified NAME]
//
// Takes the index, two server pages and the regressions page, each at 1400 and 375 px wide, as
// <out>/{index,server,verified,regressions}-{1400,375}.png. The `server` page is NAME's, or by
// default the first failed row of the site's leaderboard (a failure shows the most of a page: its
// reason and stderr), or the first row when none failed. The `verified` page is a measured server's
// (--verified, default server-memory) after its "Verify in this browser" button ran. The site is
// served on 127.0.0.1 for the run (a page opened from file:// may not fetch its record). Run it
// again after a sweep rebuilds the site.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join, resolve, sep } from 'node:path';
import { chromium } from 'playwright-core';
// The site names each page as the results folder names the server: the built package's own rule.
import { safeSegment } from '../dist/measure/index.js';

const CHROMIUM = '/usr/bin/chromium';
const WIDTHS = [1400, 375];
/** Statuses that carry a number or none yet; any other is a failure (new statuses included). */
const NOT_FAILED = new Set(['measured', 'dynamic', 'not-yet-run']);

function option(name, fallback) {
  const index = process.argv.indexOf(name);
  if (index === -1) return fallback;
  const value = process.argv[index + 1];
  if (value === undefined) throw new Error(`${name} needs a value`);
  return value;
}

const site = resolve(option('--site', 'docs/leaderboard/site'));
const out = resolve(option('--out', 'docs/leaderboard'));
if (!existsSync(join(site, 'index.html'))) throw new Error(`${site} holds no index.html: build it with mcpctx site first`);
if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y --no-install-recommends chromium`);

const leaderboard = JSON.parse(readFileSync(join(site, 'leaderboard.json'), 'utf8'));
const wanted = option('--server', undefined);
const row = wanted === undefined ? (leaderboard.rows.find((candidate) => !NOT_FAILED.has(candidate.status)) ?? leaderboard.rows[0]) : leaderboard.rows.find((candidate) => candidate.server === wanted);
if (row === undefined) throw new Error(`no server ${JSON.stringify(wanted)} in ${site}`);
const segment = safeSegment(row.server);

const verifiedName = option('--verified', 'server-memory');
const verifiedRow = leaderboard.rows.find((candidate) => candidate.server === verifiedName);
if (verifiedRow === undefined) throw new Error(`no server ${JSON.stringify(verifiedName)} in ${site}`);
const verifiedSegment = safeSegment(verifiedRow.server);

const pages = [
  ['index', 'index.html'],
  ['server', `servers/${segment}.html`],
  ['verified', `servers/${verifiedSegment}.html`],
  ['regressions', 'regressions.html'],
];

// A static server of the site folder on loopback, for the run only.
const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.css': 'text/css', '.json': 'application/json', '.svg': 'image/svg+xml', '.csv': 'text/csv' };
const server = createServer((request, response) => {
  const path = resolve(site, `.${decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname)}`);
  if (!path.startsWith(site + sep) || !existsSync(path)) {
    response.writeHead(404).end();
    return;
  }
  response.writeHead(200, { 'content-type': TYPES[extname(path)] ?? 'application/octet-stream' }).end(readFileSync(path));
});
await new Promise((done) => server.listen(0, '127.0.0.1', done));
const base = `http://127.0.0.1:${server.address().port}/`;

const profile = mkdtempSync(join(tmpdir(), 'mcpctx-screenshots-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: CHROMIUM,
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run', '--disable-component-update', '--disable-sync'],
  env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: profile },
});
try {
  for (const width of WIDTHS) {
    for (const [name, path] of pages) {
      const page = await context.newPage();
      await page.setViewportSize({ width, height: 900 });
      await page.goto(new URL(path, base).href, { waitUntil: 'load' });
      if (name === 'verified') {
        await page.click('#verify-button');
        // The first recount loads a few megabytes of rank table: minutes on a loaded machine, bounded.
        await page.waitForSelector('#browser-verify[data-outcome]', { timeout: 300_000 });
        await page.locator('#browser-verify').scrollIntoViewIfNeeded();
      }
      const file = join(out, `${name}-${width}.png`);
      await page.screenshot({ path: file, fullPage: true });
      await page.close();
      process.stdout.write(`${file}\n`);
    }
  }
} finally {
  await context.close();
  server.close();
  rmSync(profile, { recursive: true, force: true });
}
// Screenshots are byte-stable only per Chromium build; say which made them.
const version = spawnSync(CHROMIUM, ['--version'], { encoding: 'utf8' }).stdout.trim();
process.stdout.write(`taken with ${version || 'chromium'} (server page: ${row.server}; verified: ${verifiedRow.server})\n`);
