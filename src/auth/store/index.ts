// Where OAuth logins are kept (a 0600 file or the OS keychain, under a lock), and listing and
// ending them (`auth list`, `auth logout` with RFC 7009 revocation).
export { openTokenStore, type OpenTokenStoreOptions, type TokenStore, type TokenStoreMode } from './_store.js';
export { KEYRING_SERVICE, type KeyringBackend } from './_keyring.js';
export { REVOKE_TIMEOUT_MS, listLogins, logout, type LoginList, type LoginRow, type LogoutOptions, type LogoutResult, type StoreSummary } from './_logins.js';
export type { RevokeOutcome, TokenHint } from './_revoke.js';
