// OAuth for remote MCP servers: where logins are kept (a 0600 file or the OS keychain), the URL a
// login is kept under, and listing and ending logins. The login flow and refresh build on these.
export type { StoredClient, StoredLogin, StoredTokens } from './_types.js';
export { authFilePath, canonicalResource } from './_paths.js';
export { openTokenStore, type OpenTokenStoreOptions, type TokenStore, type TokenStoreMode } from './_store.js';
export { KEYRING_SERVICE, type KeyringBackend } from './_keyring.js';
export { REVOKE_TIMEOUT_MS, listLogins, logout, type LoginList, type LoginRow, type LogoutOptions, type LogoutResult, type StoreSummary } from './_logins.js';
export type { RevokeOutcome, TokenHint } from './_revoke.js';
