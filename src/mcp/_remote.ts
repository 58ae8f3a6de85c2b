import { McpctxError } from '../errors/index.js';
import type { Deadline } from './_deadline.js';
import { HttpClientTransport } from './_http-transport.js';
import { hasAuthorizationHeader, type BearerSource } from './_bearer.js';
import { checkHeaders, parseUrl } from './_http-options.js';
import { credentialsInArgs, isEnvName, namesCredential } from './_launch.js';
import { LegacySseClientTransport } from './_legacy-sse-transport.js';
import { RawClient, declaredAnswers } from './_raw-client.js';
import type { ServerDiagnostics } from './_server-session.js';
import { DEFAULT_PROTOCOL_VERSION, initialize, type InitializeOutcome } from './_session.js';
import { ownValue, setOwn } from '../json/index.js';

/** The two HTTP transports of MCP: streamable HTTP (2025-03-26 on) and the older HTTP+SSE (2024-11-05). */
export type RemoteTransportKind = 'streamable-http' | 'sse';

/** How to reach a server over HTTP. */
export interface RemoteSpec {
  url: string;
  /**
   * Header name -> the NAME of the environment variable that holds its value
   * (`{ Authorization: 'MY_TOKEN' }` sends process.env.MY_TOKEN). Never the value itself.
   */
  headers?: Readonly<Record<string, string>>;
  /** `auto` (default): streamable HTTP, then HTTP+SSE when the POST is refused with a 4xx and the GET gives an event stream. */
  transport?: 'auto' | RemoteTransportKind;
  /**
   * `oauth`: the server uses OAuth; a stored login (`mcpctx auth login URL`) is used, and a refusal
   * names the login command. `none`: never send a stored login. Unset: a stored login is used when
   * there is one.
   */
  auth?: RemoteAuthMode;
}

export type RemoteAuthMode = 'oauth' | 'none';

/** Gives the bearer for a remote spec (src/auth reads its stored logins), or undefined for none. */
export type BearerResolver = (remote: RemoteSpec) => BearerSource | undefined;

/** True for a remote spec (it has `url`), false for a stdio launch (it has `command`). */
export function isRemoteSpec(launch: object): launch is RemoteSpec {
  return 'url' in launch;
}

export interface ResolvedHeaders {
  /** Header name -> value, for the headers whose variable is set (and not empty). */
  headers: Record<string, string>;
  /** Headers not sent because their variable is unset or empty, in spec order. */
  missing: Array<{ header: string; envName: string }>;
  /** Variable name -> value of every header sent: what must be scrubbed from anything recorded. */
  secrets: Array<[string, string]>;
}

/**
 * Checks that every header names an environment variable and reads the values from `env`. A value
 * that is not a variable name (someone wrote the secret itself) is refused without repeating it.
 */
export function resolveRemoteHeaders(spec: Pick<RemoteSpec, 'headers'>, env: NodeJS.ProcessEnv = process.env): ResolvedHeaders {
  const resolved: ResolvedHeaders = { headers: {}, missing: [], secrets: [] };
  for (const [header, envName] of Object.entries(spec.headers ?? {})) {
    checkHeaderEnvName(header, envName);
    const value = ownValue(env, envName);
    if (value === undefined || value === '') {
      resolved.missing.push({ header, envName });
      continue;
    }
    setOwn(resolved.headers, header, value);
    resolved.secrets.push([envName, value]);
  }
  return resolved;
}

/** USAGE unless `envName` is a variable name; the message never quotes what was given (it may be a secret). */
export function checkHeaderEnvName(header: string, envName: unknown): void {
  if (typeof envName !== 'string' || !isEnvName(envName)) {
    throw new McpctxError(
      'USAGE',
      `header ${JSON.stringify(header)} must name the environment variable that holds its value (letters, digits and _, like MY_TOKEN), not the value itself`,
      { header },
    );
  }
}

const TRANSPORT_CHOICES = ['auto', 'streamable-http', 'sse'];

/** USAGE unless the spec can be used: an http(s) URL without credentials, headers naming variables, a known transport. */
export function checkRemoteSpec(spec: RemoteSpec): void {
  parseUrl(spec.url);
  for (const [header, envName] of Object.entries(spec.headers ?? {})) checkHeaderEnvName(header, envName);
  // The names only: a placeholder stands for each value, which is read later from the environment.
  checkHeaders(Object.fromEntries(Object.keys(spec.headers ?? {}).map((header) => [header, 'value'])));
  if (spec.auth !== undefined && spec.auth !== 'oauth' && spec.auth !== 'none') {
    throw new McpctxError('USAGE', `unknown remote auth ${JSON.stringify(spec.auth)}; choose oauth (use the login of mcpctx auth login) or none`, { value: spec.auth });
  }
  if (spec.transport !== undefined && !TRANSPORT_CHOICES.includes(spec.transport)) {
    throw new McpctxError('USAGE', `unknown remote transport ${JSON.stringify(spec.transport)}; choose from ${TRANSPORT_CHOICES.join(', ')}`, {
      transport: spec.transport,
    });
  }
}

/**
 * A server URL as it may be recorded: no user or password, no fragment, and every query value that
 * looks like a credential (`?api_key=...`, `&token=...`, a `ghp_...` anywhere) as `[redacted]`.
 * Also returns those values, named `query:<name>`, for scrubbing other text.
 */
export function redactUrl(text: string): { url: string; secrets: Array<[string, string]> } {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { url: '(not a URL)', secrets: [] };
  }
  const secrets: Array<[string, string]> = [];
  const base = `${url.origin}${url.pathname}`;
  const query = url.search.slice(1);
  if (query === '') return { url: base, secrets };
  const parts = query.split('&').map((part) => {
    const equals = part.indexOf('=');
    if (equals === -1) return part;
    const rawName = part.slice(0, equals);
    const rawValue = part.slice(equals + 1);
    const name = decodeQueryPart(rawName);
    const value = decodeQueryPart(rawValue);
    if (value === '' || !(namesCredential(name) || credentialsInArgs([value]).length > 0)) return part;
    secrets.push([`query:${name}`, value]);
    return `${rawName}=[redacted]`;
  });
  return { url: `${base}?${parts.join('&')}`, secrets };
}

/**
 * `text` (an error's message, a cause) with `url` as `redactUrl` records it: the URL itself, then
 * any of its user, password and credential query values quoted on their own, as `[redacted]`. For
 * the messages that name a configured URL: they say the host, port and path, and nothing secret.
 */
export function redactUrlIn(text: string, url: string): string {
  const { url: shown, secrets } = redactUrl(url);
  let out = text.split(url).join(shown);
  const values = secrets.map(([, value]) => value);
  if (URL.canParse(url)) {
    const { username, password } = new URL(url);
    for (const part of [password, username]) if (part !== '') values.push(part, decodeQueryPart(part));
  }
  for (const value of [...new Set(values)].sort((a, b) => b.length - a.length)) out = out.split(value).join('[redacted]');
  return out;
}

function decodeQueryPart(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

/** What a remote run used and met, beside the usual diagnostics. */
export interface RemoteDiagnostics {
  /** The transport that carried the session, once one did. */
  transport?: RemoteTransportKind;
  /** True when `auto` detection chose it (false when the spec named it). */
  detected: boolean;
  /** Headers not sent because their variable was unset or empty. */
  missingHeaders: Array<{ header: string; envName: string }>;
}

export interface RemoteSessionOptions {
  remote: RemoteSpec;
  /** Where header values are read from; default process.env. */
  env?: NodeJS.ProcessEnv;
  protocolVersion?: string;
  capabilities?: Record<string, unknown>;
  clientInfo?: { name: string; version: string };
  /** Largest JSON body or SSE event accepted. */
  maxFrameBytes?: number;
  /** Where a stored OAuth login comes from; without it, only the spec's headers are sent. */
  bearerFor?: BearerResolver;
}

/**
 * One server over HTTP, opened the way `ServerSession` opens one over stdio: `initialize` picks the
 * transport (detecting it under `auto`) within the caller's deadline and runs the handshake through
 * the raw client; `diagnostics` ends the session (DELETE for streamable HTTP, best effort).
 */
export class RemoteSession {
  private readonly options: RemoteSessionOptions;
  private readonly resolved: ResolvedHeaders;
  private readonly bearer: BearerSource | undefined;
  private current: RawClient | undefined;
  private used: RemoteTransportKind | undefined;
  private endedBeforeClose = false;
  private closing = false;

  constructor(options: RemoteSessionOptions) {
    this.options = options;
    this.resolved = resolveRemoteHeaders(options.remote, options.env);
    this.bearer = hasAuthorizationHeader(this.resolved.headers) ? undefined : options.bearerFor?.(options.remote);
  }

  /** The raw client of the transport in use (after `initialize`). */
  get client(): RawClient {
    if (!this.current) throw new McpctxError('USAGE', 'the remote session is not initialized');
    return this.current;
  }

  /** Nothing to start: HTTP has no connection before the first request. */
  async start(): Promise<void> {}

  /** Opens the transport and runs the handshake within `deadline`, trying HTTP+SSE after a refused POST under `auto`. */
  async initialize(deadline: Deadline): Promise<InitializeOutcome> {
    const wanted = this.options.remote.transport ?? 'auto';
    const order: RemoteTransportKind[] = wanted === 'auto' ? ['streamable-http', 'sse'] : [wanted];
    const failures: Array<{ kind: RemoteTransportKind; error: McpctxError }> = [];
    for (const kind of order) {
      const { client, legacy } = this.open(kind);
      try {
        if (legacy) await legacy.connect(deadline);
        await client.start();
        const outcome = await initialize(client, {
          protocolVersion: this.options.protocolVersion ?? DEFAULT_PROTOCOL_VERSION,
          capabilities: this.options.capabilities ?? {},
          clientInfo: this.options.clientInfo,
          deadline,
        });
        this.used = kind;
        return outcome;
      } catch (thrown) {
        const error = asError(thrown);
        failures.push({ kind, error });
        const tryLegacy = kind === 'streamable-http' && order.length > 1 && notThisTransport(error);
        if (!tryLegacy) throw failures.length > 1 && notThisTransport(error) ? neitherTransport(failures) : error;
        await client.close();
        this.endedBeforeClose = false;
      }
    }
    throw new McpctxError('USAGE', 'no transport to try');
  }

  /** Ends the session and says what the run used. */
  async diagnostics(): Promise<ServerDiagnostics & { remote: RemoteDiagnostics }> {
    this.closing = true;
    await this.current?.close();
    return {
      exit: { code: null, signal: null },
      endedOnItsOwn: this.endedBeforeClose,
      stderrTail: '',
      stderrBytes: 0,
      nonJsonLines: { count: 0 },
      strayResponses: this.current?.strayResponses ?? { count: 0 },
      remote: {
        ...(this.used === undefined ? {} : { transport: this.used }),
        detected: (this.options.remote.transport ?? 'auto') === 'auto',
        missingHeaders: [...this.resolved.missing],
      },
    };
  }

  private open(kind: RemoteTransportKind): { client: RawClient; legacy?: LegacySseClientTransport } {
    const common = { url: this.options.remote.url, headers: this.resolved.headers, bearer: this.bearer, maxFrameBytes: this.options.maxFrameBytes };
    // No GET stream for streamable HTTP: a measurement needs no server-initiated messages beyond those on its POSTs.
    const legacy = kind === 'sse' ? new LegacySseClientTransport(common) : undefined;
    const transport = legacy ?? new HttpClientTransport({ ...common, listen: false });
    const capabilities = this.options.capabilities ?? {};
    this.current = new RawClient(transport, {
      ...declaredAnswers(capabilities),
      onClose: () => {
        if (!this.closing) this.endedBeforeClose = true;
      },
    });
    return legacy ? { client: this.current, legacy } : { client: this.current };
  }
}

/** A refusal that says "not this transport here": a 4xx other than 401/403, or an answer of the wrong kind. */
function notThisTransport(error: McpctxError): boolean {
  const status = error.data.status;
  if (error.code === 'HTTP_STATUS') return typeof status === 'number' && status >= 400 && status < 500 && status !== 401 && status !== 403;
  return error.code === 'PROTOCOL' && typeof error.data.contentType === 'string';
}

function neitherTransport(failures: ReadonlyArray<{ kind: RemoteTransportKind; error: McpctxError }>): McpctxError {
  const tried = failures.map(({ kind, error }) => `${kind === 'sse' ? 'HTTP+SSE (GET for an event stream)' : 'streamable HTTP (POST)'}: ${error.message}`);
  return new McpctxError('HTTP_STATUS', `no MCP transport answered: tried ${tried.join('; then ')}`, {
    status: failures.at(-1)?.error.data.status ?? null,
    tried: failures.map(({ kind }) => kind),
  });
}

function asError(error: unknown): McpctxError {
  if (error instanceof McpctxError) return error;
  return new McpctxError('IO', error instanceof Error ? error.message : String(error), {}, { cause: error });
}
