// OAuth for remote MCP servers: logging in (a browser and a loopback redirect, or a machine
// client), the stored logins, and the bearer that measure, sweep, audit and the gateway send.
export type { StoredClient, StoredLogin, StoredTokens } from './_types.js';
export { openTokenStore, type TokenStore } from './_store.js';
export { loginKey } from './_resource.js';
export { loginWithBrowser, type BrowserLoginOptions, type LoginOutcome } from './_login.js';
export { loginWithClientCredentials, type ClientCredentialsLoginOptions } from './_client-credentials.js';
export { bearerForRemote, loginCommand, type StoredBearerOptions } from './_stored-bearer.js';
export { openInBrowser } from './_browser.js';
