// The browser half of the OAuth tests, typed: oauth-browser.mjs holds the walk (so a CLI test can
// run the same thing as its BROWSER command); this launches it with the test mark in chromium's
// environment, so the leak checks see a browser that outlived its test, and a throwaway HOME.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
// @ts-expect-error -- a plain .mjs (runnable as a command) without type declarations
import { approveInBrowser as walk } from './oauth-browser.mjs';
import { markedEnv } from './processes.js';

/** The command form, for a CLI test's BROWSER: `node OAUTH_BROWSER_SCRIPT URL [--deny]`. */
export const OAUTH_BROWSER_SCRIPT: string = fileURLToPath(new URL('./oauth-browser.mjs', import.meta.url));

function shellQuoted(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}

/**
 * Writes an executable script into `dir` for a CLI test's BROWSER variable: it runs the walk on
 * the URL it is given (cancelling consent with `deny`) and exits 0 once the redirect page loaded.
 * The CLI's environment reaches chromium, so run the CLI with markedEnv(). Returns its path.
 */
export async function writeBrowserCommand(dir: string, options: { deny?: boolean } = {}): Promise<string> {
  const path = join(dir, options.deny === true ? 'oauth-browser-deny' : 'oauth-browser');
  const deny = options.deny === true ? ' --deny' : '';
  await writeFile(path, `#!/bin/sh\nexec ${shellQuoted(process.execPath)} ${shellQuoted(OAUTH_BROWSER_SCRIPT)} "$@"${deny}\n`, { mode: 0o755 });
  return path;
}

export interface ApproveOptions {
  /** Cancel the consent page instead of approving it (the redirect then carries error=access_denied). */
  deny?: boolean;
  /** Bound on the whole walk, launch included (default 30 s). */
  timeoutMs?: number;
}

type Walk = (authorizationUrl: string, options: ApproveOptions & { env?: Record<string, string> }) => Promise<{ finalUrl: string }>;

/**
 * Opens `authorizationUrl` in headless chromium, signs in, approves (or with deny, cancels) the
 * consent page and resolves with the URL of the loaded loopback redirect page. Throws when
 * /usr/bin/chromium is missing or the redirect is not reached in time; the browser is always closed.
 */
export async function approveInBrowser(authorizationUrl: string, options: ApproveOptions = {}): Promise<{ finalUrl: string }> {
  const home = await mkdtemp(join(tmpdir(), 'mcpctx-oauth-browser-'));
  try {
    return await (walk as Walk)(authorizationUrl, { ...options, env: markedEnv({ PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home }) });
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}
