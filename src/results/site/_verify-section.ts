// The in-browser verify of a server page: its markup, and the recount script it loads
// (verify/recount.js, copied from the package's build). The button's script is in site.js.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { attr } from './_html.js';

/** The site's folder for the verify scripts (a rebuild removes it with the rest). */
export const VERIFY_FOLDER = 'verify';
const RECOUNT_FILE = `${VERIFY_FOLDER}/recount.js`;
/** Written by `npm run build` (tools/build.mjs), from src/results/site/browser. */
const BUILT_RECOUNT = join('dist', 'site', 'recount.js');

/** The button, and where it reads the record, for a page in servers/ whose record is at `measurementPath` (site-relative). */
export function browserVerifyHtml(measurementPath: string): string {
  return [
    `<div id="browser-verify" data-measurement="../${attr(measurementPath)}" data-recount="../${RECOUNT_FILE}">`,
    '<p>Or recount it here: the button fetches that record and counts its capture again in this browser, with the code and tokenizer mcpctx uses (gpt-tokenizer, o200k_base; its rank table, a few megabytes, loads only when you press it, from this site). Each figure gets a check, or the difference.</p>',
    '<p><button type="button" id="verify-button">Verify in this browser</button></p>',
    '<p id="verify-status" role="status"></p>',
    '<div id="verify-result" class="scroll"></div>',
    '</div>',
  ].join('\n');
}

/**
 * The verify files of the site. The recount script comes from the package's build; an mcpctx run
 * from sources that was never built has none, and the button then says so when pressed.
 */
export async function verifyFiles(): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  const root = packageRoot();
  const recount = root === undefined ? undefined : await readFile(join(root, BUILT_RECOUNT), 'utf8').catch(() => undefined);
  if (recount !== undefined) files.set(RECOUNT_FILE, recount);
  return files;
}

/**
 * mcpctx's folder: the nearest one up from this file that holds package.json. This file runs
 * from src/results/site, dist/results/site or dist/cli (the CLI bundle), so the depth varies.
 */
function packageRoot(): string | undefined {
  let folder = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 6; depth += 1) {
    if (existsSync(join(folder, 'package.json'))) return folder;
    const parent = dirname(folder);
    if (parent === folder) return undefined;
    folder = parent;
  }
  return undefined;
}
