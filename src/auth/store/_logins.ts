/**
 * `mcpctx auth list` and `mcpctx auth logout` as library calls that return data: the rows say
 * what a login is (never a token or a secret), and logout revokes what it can before it forgets.
 */
import { canonicalResource } from '../_paths.js';
import { revokeToken, type RevokeOutcome } from './_revoke.js';
import type { TokenStore } from './_store.js';
import type { StoredLogin } from '../_types.js';

/** How long logout waits for the revocation endpoint, both tokens together. */
export const REVOKE_TIMEOUT_MS = 10_000;

export interface StoreSummary {
  kind: 'file' | 'keyring';
  file: string;
  note?: string;
}

export interface LoginRow {
  resource: string;
  issuer: string;
  grant: StoredLogin['grant'];
  /** The scope granted (the token's, else the login's), null when none was said. */
  scope: string | null;
  /** When the access token expires (ISO), null when the server did not say. */
  expiresAt: string | null;
  expired: boolean;
  refreshToken: boolean;
  savedAt: string;
}

export interface LoginList {
  store: StoreSummary;
  logins: LoginRow[];
}

export function storeSummary(store: TokenStore): StoreSummary {
  return { kind: store.kind, file: store.file, ...(store.note === undefined ? {} : { note: store.note }) };
}

export async function listLogins(store: TokenStore, now: number = Date.now()): Promise<LoginList> {
  const logins = await store.list();
  return {
    store: storeSummary(store),
    logins: logins.map((login) => ({
      resource: login.resource,
      issuer: login.issuer,
      grant: login.grant,
      scope: login.tokens.scope ?? login.scope ?? null,
      expiresAt: login.tokens.expiresAt === undefined ? null : new Date(login.tokens.expiresAt).toISOString(),
      expired: login.tokens.expiresAt !== undefined && login.tokens.expiresAt <= now,
      refreshToken: login.tokens.refreshToken !== undefined,
      savedAt: login.savedAt,
    })),
  };
}

export interface LogoutResult {
  /** The canonical resource the URL given names. */
  resource: string;
  /** Whether a login was kept for it (false: nothing was done). */
  found: boolean;
  /** The revocation endpoint used, null when the login has none (its tokens then stay valid until they expire). */
  revocationEndpoint: string | null;
  /** The refresh token first (revoking it may end its access tokens too), then the access token. */
  revocations: RevokeOutcome[];
  /** Whether the login was removed from the store (and its keychain entry). */
  deleted: boolean;
  store: StoreSummary;
}

export interface LogoutOptions {
  /** Where a client secret named by env variable is read; default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Default REVOKE_TIMEOUT_MS. */
  revokeTimeoutMs?: number;
}

/** Revokes the login's tokens where its authorization server offers it (a failure is reported, not fatal), then removes the login. */
export async function logout(store: TokenStore, url: string, options: LogoutOptions = {}): Promise<LogoutResult> {
  const resource = canonicalResource(url);
  const login = await store.get(resource);
  const result: LogoutResult = { resource, found: login !== undefined, revocationEndpoint: login?.endpoints.revocation ?? null, revocations: [], deleted: false, store: storeSummary(store) };
  if (login !== undefined && login.endpoints.revocation !== undefined) {
    const signal = AbortSignal.timeout(options.revokeTimeoutMs ?? REVOKE_TIMEOUT_MS);
    const revoke = { endpoint: login.endpoints.revocation, env: options.env ?? process.env, signal };
    if (login.tokens.refreshToken !== undefined) result.revocations.push(await revokeToken(login, login.tokens.refreshToken, 'refresh_token', revoke));
    result.revocations.push(await revokeToken(login, login.tokens.accessToken, 'access_token', revoke));
  }
  // A login whose secrets are gone from the keychain is not listed, but its record is removed all the same.
  result.deleted = await store.delete(resource);
  result.found ||= result.deleted;
  return result;
}
