// OAuth for remote MCP servers: logging in (a browser and a loopback redirect, or a machine
// client), where logins are kept (a 0600 file or the OS keychain), listing and ending them, and
// the bearer that measure, sweep, audit and the gateway send.
export type { StoredClient, StoredLogin, StoredTokens } from './_types.js';
export { authFilePath, canonicalResource } from './_paths.js';
export { openTokenStore, type OpenTokenStoreOptions, type TokenStore, type TokenStoreMode } from './_store.js';
export { KEYRING_SERVICE, type KeyringBackend } from './_keyring.js';
export { REVOKE_TIMEOUT_MS, listLogins, logout, type LoginList, type LoginRow, type LogoutOptions, type LogoutResult, type StoreSummary } from './_logins.js';
export type { RevokeOutcome, TokenHint } from './_revoke.js';
export { loginWithBrowser, type BrowserLoginOptions, type LoginOutcome } from './_login.js';
export { loginWithClientCredentials, type ClientCredentialsLoginOptions } from './_client-credentials.js';
export { bearerForRemote, loginCommand, type StoredBearerOptions } from './_stored-bearer.js';
export { openInBrowser } from './_browser.js';
