#!/usr/bin/env node
// A person at a browser, for the OAuth tests: Debian's headless chromium (driven by playwright-core,
// as the site tests do) opens an authorization URL, signs in on oidc-provider's login page (any
// login works there), approves (or cancels) the consent page and waits until the browser has landed
// on the loopback redirect URI and that page has loaded. The browser is always closed.
//
// As a command, for a CLI test's BROWSER: `node test/support/oauth-browser.mjs URL [--deny]` exits
// 0 once the redirect page loaded, 1 otherwise. It prints only where it landed, never the query
// (the code and state are the product's business).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

/** Pages a login may pass through (login, consent, and a spare); more means something loops. */
const MAX_STEPS = 6;
const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * The redirect URI the authorization URL names, as origin + path; undefined when it names none
 * (then any 127.0.0.1 page off the authorization server counts).
 */
function expectedRedirect(authorizationUrl) {
  const named = new URL(authorizationUrl).searchParams.get('redirect_uri');
  if (named === null) return undefined;
  const parsed = new URL(named);
  return parsed.origin + parsed.pathname;
}

function isRedirect(url, authorizationUrl, redirect) {
  let parsed;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (redirect !== undefined) return parsed.origin + parsed.pathname === redirect;
  return parsed.hostname === '127.0.0.1' && parsed.origin !== new URL(authorizationUrl).origin;
}

/**
 * Completes the login and consent pages for `authorizationUrl`; with `deny`, cancels consent
 * instead. Resolves with the URL of the loaded redirect page (code and state, or the error).
 * Options: deny, timeoutMs (the whole walk, default 30 s), env (chromium's environment).
 */
export async function approveInBrowser(authorizationUrl, options = {}) {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: the OAuth browser tests need Debian's chromium (apt-get install -y --no-install-recommends chromium)`);
  }
  const deadline = Date.now() + (options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  const left = () => Math.max(1, deadline - Date.now());
  const redirect = expectedRedirect(authorizationUrl);
  const reached = (url) => isRedirect(url, authorizationUrl, redirect);
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    timeout: left(),
    ...(options.env === undefined ? {} : { env: options.env }),
  });
  try {
    const page = await browser.newPage();
    await page.goto(authorizationUrl, { waitUntil: 'load', timeout: left() });
    for (let step = 0; step < MAX_STEPS; step += 1) {
      if (reached(page.url())) return { finalUrl: page.url() };
      const prompt = await page.locator('input[name="prompt"]').first().getAttribute('value', { timeout: left() }).catch(() => null);
      const before = page.url();
      if (prompt === 'login') {
        await page.fill('input[name="login"]', 'tester', { timeout: left() });
        await page.fill('input[name="password"]', 'any password', { timeout: left() });
        await page.click('button[type="submit"]', { timeout: left(), noWaitAfter: true });
      } else if (prompt === 'consent' && options.deny === true) {
        await page.click('a:has-text("Cancel")', { timeout: left(), noWaitAfter: true });
      } else if (prompt === 'consent') {
        await page.click('button[type="submit"]', { timeout: left(), noWaitAfter: true });
      } else {
        const text = (await page.locator('body').innerText({ timeout: left() }).catch(() => '')).replace(/\s+/g, ' ').slice(0, 400);
        throw new Error(`the browser is on ${before}, neither a login or consent page nor the redirect URI: ${text}`);
      }
      await page.waitForURL((url) => url.href !== before, { waitUntil: 'load', timeout: left() });
    }
    if (reached(page.url())) return { finalUrl: page.url() };
    throw new Error(`the browser did not reach the redirect URI within ${MAX_STEPS} pages; it is on ${page.url()}`);
  } finally {
    await browser.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [url, ...flags] = process.argv.slice(2);
  if (url === undefined || url === '' || flags.some((flag) => flag !== '--deny')) {
    process.stderr.write('usage: node test/support/oauth-browser.mjs AUTHORIZATION_URL [--deny]\n');
    process.exit(2);
  }
  try {
    const { finalUrl } = await approveInBrowser(url, { deny: flags.includes('--deny') });
    const landed = new URL(finalUrl);
    process.stderr.write(`oauth-browser: the browser reached ${landed.origin}${landed.pathname}\n`);
  } catch (error) {
    process.stderr.write(`oauth-browser: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}
