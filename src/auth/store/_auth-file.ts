/**
 * The auth file on disk: `{"format": "mcpctx-auth/v1", "logins": {RESOURCE: login}}`. Read with a
 * size cap, parsed with own properties only and checked field by field (a login is rebuilt from
 * the fields it knows, so nothing else in the file reaches the caller); written whole, 0600, through
 * a synced temporary file renamed over it, so a crash or a reader never meets half a file.
 * Errors name the file and what is wrong with its shape, never a value: the file holds tokens.
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { chmod, mkdir, open, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { McpctxError } from '../../errors/index.js';
import { isPlainObject, ownValue, setOwn, type JsonObject } from '../../json/index.js';
import { PRIVATE_FILE_MODE, sharedFileWarning } from '../../private-file/index.js';
import type { StoredClient, StoredLogin, StoredTokens } from '../_types.js';

export const AUTH_FILE_FORMAT = 'mcpctx-auth/v1';
/** Far more than any number of logins takes; a file this big is not an auth file. */
export const MAX_AUTH_FILE_BYTES = 4 * 1024 * 1024;
const PRIVATE_FOLDER_MODE = 0o700;

/** A login as the file keeps it: with the keychain, its secrets are not in the file (`secretsIn: 'keyring'`). */
export interface KeptLogin extends Omit<StoredLogin, 'tokens' | 'client'> {
  client: Omit<StoredClient, 'clientSecret'> & { clientSecret?: string };
  tokens: Omit<StoredTokens, 'accessToken'> & { accessToken?: string };
  secretsIn?: 'keyring';
}

/** The logins by resource, in a null-prototype record: a resource named `__proto__` is only a key. */
export type KeptLogins = Record<string, KeptLogin>;

export function emptyLogins(): KeptLogins {
  return Object.create(null) as KeptLogins;
}

/** What the file says: its logins (none when it does not exist), and a warning when others could read it (it is made 0600 then). */
export async function readAuthFile(file: string): Promise<{ logins: KeptLogins; warning?: string }> {
  let text: string;
  let warning: string | undefined;
  try {
    const handle = await open(file, 'r');
    try {
      const { size } = await handle.stat();
      if (size > MAX_AUTH_FILE_BYTES) throw corrupt(file, `it is ${size} bytes, over the ${MAX_AUTH_FILE_BYTES} an auth file may have`);
      text = await handle.readFile('utf8');
    } finally {
      await handle.close();
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { logins: emptyLogins() };
    if (error instanceof McpctxError) throw error;
    throw new McpctxError('IO', `Cannot read the auth file ${file}: ${(error as Error).message}`, { file, reason: 'open-failed' }, { cause: error });
  }
  const shared = sharedFileWarning(file, 'OAuth tokens');
  if (shared !== undefined) {
    await chmod(file, PRIVATE_FILE_MODE).catch(() => {});
    warning = `${shared}. mcpctx has made it 0600 now; tokens read meanwhile stay valid until you log out and log in again`;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // JSON.parse's message quotes the text around the fault: it may be a token.
    throw corrupt(file, 'it is not JSON');
  }
  return { logins: loginsOf(value, file), ...(warning === undefined ? {} : { warning }) };
}

/** Writes every login, replacing the file atomically; the folder is created 0700 when missing. */
export async function writeAuthFile(file: string, logins: KeptLogins): Promise<void> {
  const folder = dirname(file);
  const temporary = join(folder, `.${basename(file)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await mkdir(folder, { recursive: true, mode: PRIVATE_FOLDER_MODE });
    const handle = await open(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, PRIVATE_FILE_MODE);
    try {
      await handle.writeFile(`${JSON.stringify({ format: AUTH_FILE_FORMAT, logins }, null, 2)}\n`);
      // The umask can only take bits away from 0600; this restores none but says the intent for odd umasks.
      await handle.chmod(PRIVATE_FILE_MODE);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, file);
  } catch (error) {
    await unlink(temporary).catch(() => {});
    throw new McpctxError('IO', `Cannot write the auth file ${file}: ${(error as Error).message}`, { file }, { cause: error });
  }
}

/** Makes the auth file's folder (0700) when missing, so its lock can be taken before the first write. */
export async function ensureAuthFolder(file: string): Promise<void> {
  try {
    await mkdir(dirname(file), { recursive: true, mode: PRIVATE_FOLDER_MODE });
  } catch (error) {
    throw new McpctxError('IO', `Cannot create the folder of the auth file ${file}: ${(error as Error).message}`, { file, dir: dirname(file) }, { cause: error });
  }
}

function corrupt(file: string, why: string): McpctxError {
  return new McpctxError(
    'IO',
    `The auth file ${file} cannot be used: ${why}. It was not written by mcpctx, or was damaged; move it away (its logins are lost) and log in again, or point MCPCTX_AUTH_FILE at another file.`,
    { file, reason: 'corrupt' },
  );
}

function loginsOf(value: unknown, file: string): KeptLogins {
  if (!isPlainObject(value)) throw corrupt(file, 'it is not a JSON object');
  const format = ownValue(value, 'format');
  // The value found is not repeated: whatever the file holds may be a token.
  if (format !== AUTH_FILE_FORMAT) throw corrupt(file, `its format is not ${AUTH_FILE_FORMAT}`);
  const logins = ownValue(value, 'logins');
  if (!isPlainObject(logins)) throw corrupt(file, 'it has no logins object');
  const kept = emptyLogins();
  for (const [resource, entry] of Object.entries(logins)) {
    const problems: string[] = [];
    const login = loginOf(entry, problems);
    if (login === undefined || problems.length > 0) throw corrupt(file, `the login of ${JSON.stringify(resource)} ${problems.join(', ') || 'is not an object'}`);
    if (login.resource !== resource) throw corrupt(file, `the login filed under ${JSON.stringify(resource)} names another resource`);
    setOwn(kept, resource, login);
  }
  return kept;
}

/** Reads the fields of a kept login; each missing or mistyped field is added to `problems` by name. */
function loginOf(entry: unknown, problems: string[]): KeptLogin | undefined {
  if (!isPlainObject(entry)) return undefined;
  const read = fieldReader(entry, problems, '');
  const client = ownValue(entry, 'client');
  const endpoints = ownValue(entry, 'endpoints');
  const tokens = ownValue(entry, 'tokens');
  if (!isPlainObject(client)) problems.push('has no client object');
  if (!isPlainObject(endpoints)) problems.push('has no endpoints object');
  if (!isPlainObject(tokens)) problems.push('has no tokens object');
  if (!isPlainObject(client) || !isPlainObject(endpoints) || !isPlainObject(tokens)) return undefined;
  const secretsIn = ownValue(entry, 'secretsIn');
  if (secretsIn !== undefined && secretsIn !== 'keyring') problems.push('has a secretsIn that is not "keyring"');
  const readClient = fieldReader(client, problems, 'client.');
  const readEndpoints = fieldReader(endpoints, problems, 'endpoints.');
  const readTokens = fieldReader(tokens, problems, 'tokens.');
  const grant = read.oneOf('grant', ['authorization_code', 'client_credentials'] as const);
  const registration = readClient.oneOf('registration', ['dynamic', 'preregistered'] as const);
  const accessToken = readTokens.optionalString('accessToken');
  if (accessToken === undefined && secretsIn !== 'keyring') problems.push('has no tokens.accessToken');
  const login: KeptLogin = {
    resource: read.string('resource'),
    issuer: read.string('issuer'),
    grant: grant ?? 'authorization_code',
    client: defined({
      clientId: readClient.string('clientId'),
      clientSecret: readClient.optionalString('clientSecret'),
      clientSecretEnv: readClient.optionalString('clientSecretEnv'),
      registration: registration ?? 'dynamic',
      tokenEndpointAuthMethod: readClient.optionalString('tokenEndpointAuthMethod'),
      redirectUri: readClient.optionalString('redirectUri'),
    }),
    endpoints: defined({ authorizationServer: readEndpoints.string('authorizationServer'), token: readEndpoints.string('token'), revocation: readEndpoints.optionalString('revocation') }),
    tokens: defined({
      accessToken,
      refreshToken: readTokens.optionalString('refreshToken'),
      tokenType: readTokens.string('tokenType'),
      expiresAt: readTokens.optionalNumber('expiresAt'),
      scope: readTokens.optionalString('scope'),
    }),
    savedAt: read.string('savedAt'),
  };
  const scope = read.optionalString('scope');
  const wantedScope = read.optionalString('wantedScope');
  const resourceIndicator = read.optionalString('resourceIndicator');
  if (resourceIndicator !== undefined) login.resourceIndicator = resourceIndicator;
  if (scope !== undefined) login.scope = scope;
  if (wantedScope !== undefined) login.wantedScope = wantedScope;
  if (secretsIn === 'keyring') login.secretsIn = 'keyring';
  return login;
}

function fieldReader(record: JsonObject, problems: string[], prefix: string) {
  const value = (key: string): unknown => ownValue(record, key);
  return {
    string(key: string): string {
      const found = value(key);
      if (typeof found === 'string') return found;
      problems.push(`has no string ${prefix}${key}`);
      return '';
    },
    optionalString(key: string): string | undefined {
      const found = value(key);
      if (found === undefined || typeof found === 'string') return found;
      problems.push(`has a ${prefix}${key} that is not a string`);
      return undefined;
    },
    optionalNumber(key: string): number | undefined {
      const found = value(key);
      if (found === undefined || (typeof found === 'number' && Number.isFinite(found))) return found;
      problems.push(`has a ${prefix}${key} that is not a number`);
      return undefined;
    },
    oneOf<T extends string>(key: string, allowed: readonly T[]): T | undefined {
      const found = value(key);
      if (typeof found === 'string' && (allowed as readonly string[]).includes(found)) return found as T;
      problems.push(`has a ${prefix}${key} that is not ${allowed.join(' or ')}`);
      return undefined;
    },
  };
}

/** The object without its undefined members (the file never holds `"key": null` for an absent field). */
function defined<T extends object>(record: T): T {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined)) as T;
}
