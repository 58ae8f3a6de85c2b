/**
 * Where OAuth logins are kept: the auth file (0600) holds them whole, or, with the OS keychain,
 * everything but the secrets (access token, refresh token, client secret), which go into one
 * keychain entry per resource (service "mcpctx", account = resource) as JSON. Every change is a
 * read-modify-write under the file's lock. Secrets never appear in an error message.
 */
import { homedir } from 'node:os';
import { McpctxError, isMcpctxError } from '../../errors/index.js';
import { isPlainObject, ownValue, setOwn } from '../../json/index.js';
import { readAuthFile, writeAuthFile, ensureAuthFolder, type KeptLogin, type KeptLogins } from './_auth-file.js';
import { KEYRING_SERVICE, keyringProblem, osKeyring, type KeyringBackend } from './_keyring.js';
import { withAuthFileLock } from './_lock.js';
import { authFilePath } from '../_paths.js';
import type { StoredLogin } from '../_types.js';

export interface TokenStore {
  readonly kind: 'file' | 'keyring';
  readonly file: string;
  /** Why the file holds the secrets although the keychain was wanted (undefined when not). */
  readonly note?: string;
  get(resource: string): Promise<StoredLogin | undefined>;
  put(login: StoredLogin): Promise<void>;
  /**
   * Read-modify-write under an exclusive lock across processes: two refreshes never interleave.
   * `change` gets the login as it is now (undefined when there is none) and returns the login to
   * keep: the same object leaves the store untouched, undefined removes the login. Resolves to what is kept.
   */
  update(resource: string, change: (current: StoredLogin | undefined) => Promise<StoredLogin | undefined>): Promise<StoredLogin | undefined>;
  delete(resource: string): Promise<boolean>;
  list(): Promise<StoredLogin[]>;
}

export type TokenStoreMode = 'auto' | 'file' | 'keyring';

export interface OpenTokenStoreOptions {
  /** Where MCPCTX_AUTH_FILE, MCPCTX_AUTH_STORE, XDG_CONFIG_HOME and APPDATA are read; default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Default: MCPCTX_AUTH_STORE, else `auto` (the keychain when it works, else the file with a note). */
  mode?: TokenStoreMode;
  /** The keychain to use instead of the OS one (tests). */
  keyring?: KeyringBackend;
  /**
   * Try the keychain out before using it (default true: a login chooses where its secrets go).
   * False for reading and renewing the logins that exist (every measurement of a remote server):
   * nothing is written to the keychain to test it, and each login keeps its secrets where it was put.
   */
  probe?: boolean;
  /** Told once when the auth file was readable by others (it is made 0600); default process.emitWarning. */
  onWarning?: (message: string) => void;
}

const MODES: readonly TokenStoreMode[] = ['auto', 'file', 'keyring'];

export async function openTokenStore(options: OpenTokenStoreOptions = {}): Promise<TokenStore> {
  const env = options.env ?? process.env;
  const file = authFilePath(env, process.platform, homedir());
  const mode = options.mode ?? modeFromEnv(env);
  const onWarning = options.onWarning ?? ((message: string) => process.emitWarning(message));
  if (mode === 'file') return new AuthStore(file, onWarning);
  let backend = options.keyring;
  if (backend === undefined) {
    try {
      backend = await osKeyring();
    } catch (error) {
      if (mode === 'keyring' || !isMcpctxError(error)) throw error;
      return new AuthStore(file, onWarning, undefined, `@napi-rs/keyring is not installed, so the tokens are kept in ${file} (mode 0600)`);
    }
  }
  if (options.probe === false) return new AuthStore(file, onWarning, backend);
  const problem = await keyringProblem(backend);
  if (problem === undefined) return new AuthStore(file, onWarning, backend);
  if (mode === 'keyring') {
    throw new McpctxError('IO', `The OS keychain cannot be used here (${problem}); unset MCPCTX_AUTH_STORE (or set it to file) to keep the tokens in ${file} (mode 0600)`, { file, reason: 'keyring-unavailable' });
  }
  return new AuthStore(file, onWarning, undefined, `the OS keychain cannot be used here (${problem}), so the tokens are kept in ${file} (mode 0600)`);
}

function modeFromEnv(env: NodeJS.ProcessEnv): TokenStoreMode {
  const value = ownValue(env, 'MCPCTX_AUTH_STORE');
  if (value === undefined || value === '') return 'auto';
  if ((MODES as readonly string[]).includes(value)) return value as TokenStoreMode;
  throw new McpctxError('USAGE', `MCPCTX_AUTH_STORE must be file, keyring or auto, got ${JSON.stringify(value.slice(0, 40))}`, { variable: 'MCPCTX_AUTH_STORE' });
}

/** The secrets of one login, as its keychain entry holds them. */
interface LoginSecrets {
  accessToken: string;
  refreshToken?: string;
  clientSecret?: string;
}

class AuthStore implements TokenStore {
  readonly kind: 'file' | 'keyring';
  private warned = false;

  constructor(
    readonly file: string,
    private readonly onWarning: (message: string) => void,
    private readonly keyring?: KeyringBackend,
    readonly note?: string,
  ) {
    this.kind = keyring === undefined ? 'file' : 'keyring';
  }

  async get(resource: string): Promise<StoredLogin | undefined> {
    const kept = ownValue(await this.read(), resource);
    return kept === undefined ? undefined : this.complete(kept);
  }

  async list(): Promise<StoredLogin[]> {
    const logins: StoredLogin[] = [];
    for (const kept of Object.values(await this.read())) {
      const login = await this.complete(kept);
      if (login !== undefined) logins.push(login);
    }
    return logins.sort((a, b) => (a.resource < b.resource ? -1 : a.resource > b.resource ? 1 : 0));
  }

  async put(login: StoredLogin): Promise<void> {
    await this.update(login.resource, () => Promise.resolve(login));
  }

  async delete(resource: string): Promise<boolean> {
    await ensureAuthFolder(this.file);
    return withAuthFileLock(this.file, async () => {
      const logins = await this.read();
      const found = Object.hasOwn(logins, resource);
      if (found) {
        delete logins[resource];
        await writeAuthFile(this.file, logins);
      }
      const inKeyring = this.keyring === undefined ? false : await this.keyringCall('delete', resource, () => this.keyring!.delete(KEYRING_SERVICE, resource));
      return found || inKeyring;
    });
  }

  async update(resource: string, change: (current: StoredLogin | undefined) => Promise<StoredLogin | undefined>): Promise<StoredLogin | undefined> {
    await ensureAuthFolder(this.file);
    return withAuthFileLock(this.file, async () => {
      const logins = await this.read();
      const kept = ownValue(logins, resource);
      const current = kept === undefined ? undefined : await this.complete(kept);
      const next = await change(current);
      if (next !== undefined && next === current) return current;
      if (next === undefined) {
        if (kept !== undefined) {
          delete logins[resource];
          await writeAuthFile(this.file, logins);
        }
        if (this.keyring !== undefined) await this.keyringCall('delete', resource, () => this.keyring!.delete(KEYRING_SERVICE, resource));
        return undefined;
      }
      if (next.resource !== resource) {
        throw new McpctxError('INVALID_ARGUMENT', `a login for ${resource} was changed into one for another resource (${next.resource}); keep its resource`, { argument: 'resource', reason: 'resource-changed' });
      }
      setOwn(logins, resource, await this.keep(next, kept));
      await writeAuthFile(this.file, logins);
      return next;
    });
  }

  private async read(): Promise<KeptLogins> {
    const { logins, warning } = await readAuthFile(this.file);
    if (warning !== undefined && !this.warned) {
      this.warned = true;
      this.onWarning(warning);
    }
    return logins;
  }

  /** The login as the file will keep it: a copy, its secrets moved into the keychain first when there is one. */
  private async keep(login: StoredLogin, before: KeptLogin | undefined): Promise<KeptLogin> {
    const copy = structuredClone(login) as KeptLogin;
    // A login changed (renewed) keeps its secrets where they were; a new one goes where this store keeps them.
    const inKeyring = before === undefined ? this.keyring !== undefined : before.secretsIn === 'keyring';
    if (this.keyring === undefined || !inKeyring) return copy;
    const secrets: LoginSecrets = { accessToken: login.tokens.accessToken };
    if (login.tokens.refreshToken !== undefined) secrets.refreshToken = login.tokens.refreshToken;
    if (login.client.clientSecret !== undefined) secrets.clientSecret = login.client.clientSecret;
    await this.keyringCall('write', login.resource, () => this.keyring!.set(KEYRING_SERVICE, login.resource, JSON.stringify(secrets)));
    delete copy.tokens.accessToken;
    delete copy.tokens.refreshToken;
    delete copy.client.clientSecret;
    copy.secretsIn = 'keyring';
    return copy;
  }

  /** The whole login: the file's fields with the keychain's secrets; undefined when the secrets cannot be had (the login must be made again). */
  private async complete(kept: KeptLogin): Promise<StoredLogin | undefined> {
    const { secretsIn, ...fields } = structuredClone(kept);
    if (secretsIn !== 'keyring') return fields.tokens.accessToken === undefined ? undefined : (fields as StoredLogin);
    if (this.keyring === undefined) return undefined;
    const text = await this.keyringCall('read', kept.resource, () => this.keyring!.get(KEYRING_SERVICE, kept.resource));
    const secrets = text === undefined ? undefined : secretsOf(text);
    if (secrets === undefined) return undefined;
    const login = fields as StoredLogin;
    login.tokens.accessToken = secrets.accessToken;
    if (secrets.refreshToken !== undefined) login.tokens.refreshToken = secrets.refreshToken;
    if (secrets.clientSecret !== undefined) login.client.clientSecret = secrets.clientSecret;
    return login;
  }

  /** A keychain call whose failure is an IO error naming the resource and the keychain's reason (never a secret: the backend was only handed one). */
  private async keyringCall<T>(what: 'read' | 'write' | 'delete', resource: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      const reason = (String(error instanceof Error ? error.message : error).split('\n')[0] ?? '').slice(0, 300);
      throw new McpctxError('IO', `Cannot ${what} the OS keychain entry of ${resource} (service ${KEYRING_SERVICE}): ${reason}`, { file: this.file, reason: 'keyring-failed' });
    }
  }
}

/** The secrets a keychain entry holds, or undefined when it is not such an entry (then the login is made again). */
function secretsOf(text: string): LoginSecrets | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isPlainObject(value)) return undefined;
  const accessToken = ownValue(value, 'accessToken');
  const refreshToken = ownValue(value, 'refreshToken');
  const clientSecret = ownValue(value, 'clientSecret');
  if (typeof accessToken !== 'string' || (refreshToken !== undefined && typeof refreshToken !== 'string') || (clientSecret !== undefined && typeof clientSecret !== 'string')) return undefined;
  return { accessToken, ...(refreshToken === undefined ? {} : { refreshToken }), ...(clientSecret === undefined ? {} : { clientSecret }) };
}
