// OAuth for remote MCP servers: logging in (a browser and a loopback redirect, or a machine
// client), where logins are kept (a 0600 file or the OS keychain), listing and ending them, and
// the bearer that measure, sweep, audit and the gateway send.
export type { StoredClient, StoredLogin, StoredTokens } from './_types.js';
export { authFilePath, canonicalResource } from './_paths.js';
export {
  KEYRING_SERVICE,
  REVOKE_TIMEOUT_MS,
  listLogins,
  logout,
  openTokenStore,
  type KeyringBackend,
  type LoginList,
  type LoginRow,
  type LogoutOptions,
  type LogoutResult,
  type OpenTokenStoreOptions,
  type RevokeOutcome,
  type StoreSummary,
  type TokenHint,
  type TokenStore,
  type TokenStoreMode,
} from './store/index.js';
export {
  bearerForRemote,
  loginCommand,
  loginWithBrowser,
  loginWithClientCredentials,
  openInBrowser,
  type BrowserLoginOptions,
  type ClientCredentialsLoginOptions,
  type LoginOutcome,
  type StoredBearerOptions,
} from './login/index.js';
