// The static site of a results folder: a sortable, filterable leaderboard, a page per server and a
// methodology page written from the code's own constants. Plain HTML, one stylesheet, one small
// script; no data is fetched, so it works from file:// and from any static host.
import { mkdir, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { McpctxError } from '../../errors/index.js';
import { SITE_CSS, SITE_JS } from './_assets.js';
import { DOWNLOADS, sweepStamp } from './_html.js';
import { SEARCH_FILE, indexPage, searchScript } from './_index-page.js';
import { methodologyPage } from './_methodology-page.js';
import { BADGES_FOLDER, LEADERBOARD_FILE, readResults } from './_read.js';
import { regressionsPage } from './_regressions-page.js';
import { measurementCopyPath, serverPage } from './_server-page.js';
import { VERIFY_FOLDER, verifyFiles } from './_verify-section.js';
import { VERIFY_BUTTON_JS } from './_verify-script.js';
import { HISTORY_FILE } from '../history/index.js';

export interface SiteOptions {
  /** A folder written by `mcpctx sweep --out`. */
  resultsDir: string;
  /** Where the site goes: a new or empty folder, or one an earlier `buildSite` wrote. */
  outDir: string;
  /**
   * The http(s) address the site will be published at; the badge snippets use it for absolute
   * addresses. Without it they are relative to the site's root, and the pages say so.
   */
  baseUrl?: string;
}

export interface SiteReport {
  /** The site's folder, absolute. */
  outDir: string;
  /** `index.html`, absolute, and as a URL to open. */
  indexPath: string;
  indexUrl: string;
  /** Every HTML page written, relative to `outDir`, in writing order. */
  pages: string[];
  /** Badges copied from results/. */
  badges: number;
  /** Servers that results/ holds no badge for (shown without one). */
  badgesMissing: string[];
}

/** Marks a folder as this command's, so a rebuild may clear what an earlier build wrote. */
const MARKER_FILE = '.mcpctx-site';
/** Everything a build writes at the top of its folder; a rebuild removes exactly these. */
const OWNED = [MARKER_FILE, 'index.html', 'methodology.html', 'regressions.html', 'site.css', 'site.js', SEARCH_FILE, ...DOWNLOADS, 'servers', BADGES_FOLDER, 'data', VERIFY_FOLDER];

/**
 * Builds the site of `resultsDir` into `outDir`. Every file is read and checked before anything is
 * written: a missing or malformed file is refused (`INVALID_RESULTS`, or `USAGE` for a missing
 * folder) and leaves `outDir` as it was. The same results give the same bytes.
 */
export async function buildSite(options: SiteOptions): Promise<SiteReport> {
  const resultsDir = resolve(options.resultsDir);
  const outDir = resolve(options.outDir);
  if (inside(outDir, resultsDir) || inside(resultsDir, outDir)) {
    throw new McpctxError('USAGE', `the site folder ${outDir} and the results folder ${resultsDir} must not contain each other; pass another --out`);
  }
  const baseUrl = options.baseUrl === undefined ? null : checkBaseUrl(options.baseUrl);
  const input = await readResults(resultsDir);
  const resultsName = basename(resultsDir);
  const sweptNames = new Set(input.sweep.servers.filter((entry) => entry.swept).map((entry) => entry.name));
  const stamp = sweepStamp(
    input.sweep.date,
    input.servers.flatMap((server) => (sweptNames.has(server.row.server) && server.measurement?.measuredAt ? [server.measurement.measuredAt] : [])),
    sweptNames.size,
    input.sweep.servers.length,
    input.sweep.rotation ?? null,
  );

  const files = new Map<string, string>();
  files.set(MARKER_FILE, 'Written by mcpctx site; rebuilding replaces this folder\'s site files.\n');
  files.set('site.css', SITE_CSS);
  files.set('site.js', `${SITE_JS}${VERIFY_BUTTON_JS}`);
  for (const [path, content] of await verifyFiles()) files.set(path, content);
  files.set(SEARCH_FILE, searchScript(input));
  files.set(LEADERBOARD_FILE, input.leaderboardText);
  files.set(HISTORY_FILE, input.historyText);
  files.set('index.html', indexPage(input, stamp));
  files.set('regressions.html', regressionsPage(input, stamp));
  files.set('methodology.html', methodologyPage(stamp));
  const pages = ['index.html', 'regressions.html', 'methodology.html'];
  const badgesMissing: string[] = [];
  let badges = 0;
  for (const server of input.servers) {
    const pagePath = `servers/${server.segment}.html`;
    files.set(pagePath, serverPage(server, input, { resultsName, baseUrl, stamp }));
    pages.push(pagePath);
    if (server.measurementText !== null) files.set(measurementCopyPath(server.segment), server.measurementText);
    if (server.badge === null) badgesMissing.push(server.row.server);
    else {
      files.set(`${BADGES_FOLDER}/${server.segment}.svg`, server.badge);
      badges += 1;
    }
  }

  await prepareFolder(outDir);
  for (const [path, content] of files) {
    const full = join(outDir, path);
    try {
      await mkdir(dirname(full), { recursive: true });
      await writeFile(full, content, 'utf8');
    } catch (error) {
      throw new McpctxError('IO', `cannot write ${full}: ${(error as Error).message}`, { file: full });
    }
  }
  const indexPath = join(outDir, 'index.html');
  return { outDir, indexPath, indexUrl: pathToFileURL(indexPath).href, pages, badges, badgesMissing };
}

/** An http(s) address, ending in `/` so page paths append to it. */
function checkBaseUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new McpctxError('USAGE', `--base-url ${JSON.stringify(value)} is not an address; pass the http(s) address the site is published at`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new McpctxError('USAGE', `--base-url ${JSON.stringify(value)} must be an http(s) address`);
  }
  url.search = '';
  url.hash = '';
  return url.href.endsWith('/') ? url.href : `${url.href}/`;
}

function inside(child: string, parent: string): boolean {
  const path = relative(parent, child);
  return path === '' || (path !== '..' && !path.startsWith(`..${sep}`) && !isAbsolute(path));
}

/** A new or empty folder is used as is; an earlier build's files are removed; anything else is refused. */
async function prepareFolder(outDir: string): Promise<void> {
  const info = await stat(outDir).catch(() => undefined);
  if (info === undefined) return;
  if (!info.isDirectory()) throw new McpctxError('OUTPUT_CONFLICT', `${outDir} exists and is not a folder; pass another --out`, { file: outDir });
  const entries = await readdir(outDir);
  if (entries.length === 0) return;
  if (!entries.includes(MARKER_FILE)) {
    throw new McpctxError('OUTPUT_CONFLICT', `${outDir} is not empty and was not written by mcpctx site; pass a new or empty folder`, { file: outDir });
  }
  for (const entry of OWNED) await rm(join(outDir, entry), { recursive: true, force: true });
}
