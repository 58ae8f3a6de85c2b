/**
 * The OS keychain (macOS Keychain, Windows Credential Manager, the Secret Service on Linux) through
 * `@napi-rs/keyring`, an optional dependency imported only when the keychain is wanted. The store
 * talks to a `KeyringBackend`, so tests use an in-memory one.
 */
import { randomBytes } from 'node:crypto';
import { lazyImport } from '../../lazy/index.js';

/** One secret string per (service, account). */
export interface KeyringBackend {
  /** The secret, or undefined when there is no entry. */
  get(service: string, account: string): Promise<string | undefined>;
  set(service: string, account: string, secret: string): Promise<void>;
  /** Whether an entry was there. */
  delete(service: string, account: string): Promise<boolean>;
}

/** The keychain service mcpctx's entries are filed under (the account is the resource URL). */
export const KEYRING_SERVICE = 'mcpctx';

const keyringModule = lazyImport(() => import('@napi-rs/keyring'), { name: '@napi-rs/keyring', neededFor: 'keeping OAuth tokens in the OS keychain (MCPCTX_AUTH_STORE=keyring)', native: true });

/** The OS keychain; rejects with MISSING_DEPENDENCY when `@napi-rs/keyring` is not installed or its native module does not load. */
export async function osKeyring(): Promise<KeyringBackend> {
  const { AsyncEntry } = await keyringModule.load();
  return {
    get: async (service, account) => (await new AsyncEntry(service, account).getPassword()) ?? undefined,
    set: (service, account, secret) => new AsyncEntry(service, account).setPassword(secret),
    delete: (service, account) => new AsyncEntry(service, account).deletePassword(),
  };
}

/**
 * Whether the keychain works here: a probe entry is written, read back and deleted. A keychain
 * that is installed but locked or absent (a server without a Secret Service: "Couldn't access
 * platform storage: AccessDenied") fails here, not at the first login. Resolves to the reason it
 * does not work, or undefined when it does.
 */
export async function keyringProblem(backend: KeyringBackend): Promise<string | undefined> {
  const account = `probe-${process.pid}-${randomBytes(6).toString('hex')}`;
  const value = randomBytes(12).toString('hex');
  try {
    await backend.set(KEYRING_SERVICE, account, value);
    const read = await backend.get(KEYRING_SERVICE, account);
    await backend.delete(KEYRING_SERVICE, account);
    return read === value ? undefined : 'an entry written to it did not read back';
  } catch (error) {
    await backend.delete(KEYRING_SERVICE, account).catch(() => false);
    return firstLine(error);
  }
}

function firstLine(error: unknown): string {
  return (String(error instanceof Error ? error.message : error).split('\n')[0] ?? '').slice(0, 300);
}
