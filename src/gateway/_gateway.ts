import type { Readable, Writable } from 'node:stream';
import { CursorCodec } from '../shape/index.js';
import { McpctxError } from '../errors/index.js';
import { DEFAULT_TIMEOUTS, type GatewayConfig } from './config/index.js';
import { startHttpFront } from './front/index.js';
import { createMemoryStore, type AnyOffloadStore } from './results/index.js';
import { createSqliteStore } from './results/index.js';
import { ReceiptWriter, teeReceipts } from './receipts/index.js';
import { openSharedState } from './state/index.js';
import { GatewaySession, type SessionServices } from './session/index.js';
import { PinStore, ScanGate, seedSharedPins } from './trust/index.js';
import { ResultShaper } from './results/index.js';
import { StdioFront } from './front/index.js';
import { SchemaCache } from './trust/index.js';
import { prepareUpstreams, type PreparedUpstreams } from './upstream/index.js';
import { sharedFileWarning } from '../private-file/index.js';

export type GatewayFront =
  | { readonly kind: 'stdio'; readonly input: Readable; readonly output: Writable }
  | {
      readonly kind: 'http';
      readonly host: string;
      readonly port: number;
      readonly allowRemote?: boolean;
      readonly token?: string;
      /** More tokens, each its own principal (HttpFrontOptions.tokens). */
      readonly tokens?: readonly string[];
      /** The front's checks and limits, as `HttpFrontOptions` says (`--allow-host`, `--allow-origin`, `--max-sessions`, ...). */
      readonly allowHosts?: readonly string[];
      readonly allowOrigins?: readonly string[];
      readonly maxSessions?: number;
      readonly maxSessionsPerClient?: number;
      readonly sessionIdleMs?: number;
      readonly trustProxies?: readonly string[];
    };

export interface GatewayOptions {
  readonly config: GatewayConfig;
  readonly front: GatewayFront;
  /** Where `${VAR}` in env values and headers are read; default process.env. */
  readonly env?: NodeJS.ProcessEnv;
  /** SQLite file for offloaded results; memory when omitted. Not with `state`. */
  readonly storeFile?: string;
  /**
   * `redis://...` (or `rediss://`): offloaded results, pins and receipt counters kept in Redis and
   * shared by every instance given the same URL (and `key`); handles and cursors are then bound to
   * the client's credential, not its session, so any instance serves them. Default: this process.
   */
  readonly state?: string;
  /** The prefix of every Redis key, so several gateways (teams) can share one Redis; default `mcpctx:`. */
  readonly statePrefix?: string;
  readonly storeTtlMs?: number;
  readonly storeMaxBytes?: number;
  readonly receiptsFile?: string;
  readonly receiptsArgs?: boolean;
  /** HMAC key for handles and cursors (at least 16 bytes), shared by instances behind one load balancer; random when omitted. */
  readonly key?: Uint8Array;
  readonly startupTimeoutMs?: number;
  readonly requestTimeoutMs?: number;
  readonly clientRequestTimeoutMs?: number;
  /** One line for the operator (stderr); default nothing. */
  readonly log?: (line: string) => void;
  readonly version?: string;
  /**
   * The words that run this mcpctx from any folder (`mcpctx`, `node /path/dist/cli/main.js`): a
   * held tool's refusal tells the user to run `<invocation> gateway pins FILE --approve ...`.
   * Default `mcpctx`.
   */
  readonly invocation?: string;
  /**
   * The config's upstreams from `prepareUpstreams(config, env, { start: true })`, already booting
   * (a stdio client's: its one session takes them). Default: prepared here, and a stdio client's
   * started here.
   */
  readonly prepared?: PreparedUpstreams;
}

export interface RunningGateway {
  /** The HTTP front's URL (`http://host:port/mcp`), when serving HTTP. */
  readonly url: string | undefined;
  /** Client sessions open now. */
  readonly sessions: number;
  /** Resolves when the gateway stops serving: the stdio client went away, or close() was called. */
  readonly done: Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts the gateway: checks every upstream can be reached (one that cannot is logged and listed
 * as unavailable while the others serve; nothing is left running when none can), opens the offload store and the receipts file, then serves the client over stdio or
 * streamable HTTP, one session (with its own upstream connections) per client.
 */
export async function startGateway(options: GatewayOptions): Promise<RunningGateway> {
  const env = options.env ?? process.env;
  if (options.prepared && options.prepared.config !== options.config) {
    await options.prepared.close();
    throw new McpctxError('USAGE', 'the prepared upstreams belong to another config than the one given');
  }
  const prepared = options.prepared ?? (await prepareUpstreams(options.config, env, { start: options.front.kind === 'stdio' }));
  try {
    return await serve(options, prepared);
  } catch (error) {
    await prepared.close();
    throw error;
  }
}

async function serve(options: GatewayOptions, prepared: PreparedUpstreams): Promise<RunningGateway> {
  const log = options.log ?? (() => {});
  for (const note of options.config.notes) log(note);
  for (const reason of prepared.unavailable.values()) log(`unavailable, the others serve: ${reason}`);
  if (options.state !== undefined && options.storeFile !== undefined) throw new McpctxError('USAGE', 'storeFile and state both say where offloaded results go: give one');
  if (options.state !== undefined && options.key === undefined) throw new McpctxError('USAGE', 'a shared state needs the key every instance signs handles with (key, --key-env)');
  const shared = options.state === undefined ? undefined : await openSharedState(options.state, options.statePrefix === undefined ? {} : { prefix: options.statePrefix });
  const storeOptions = { ttlMs: options.storeTtlMs, maxBytes: options.storeMaxBytes };
  let store: AnyOffloadStore;
  try {
    store = shared ? shared.offloadStore(storeOptions) : options.storeFile ? createSqliteStore(options.storeFile, storeOptions) : createMemoryStore(storeOptions);
  } catch (error) {
    await shared?.close();
    throw error;
  }
  let receiptFile: ReceiptWriter | undefined;
  try {
    receiptFile = options.receiptsFile ? await ReceiptWriter.open(options.receiptsFile, { includeArgs: options.receiptsArgs }) : undefined;
    if (shared && options.config.pin !== undefined) {
      const seeded = await seedSharedPins(shared.pins, options.config.pin.file);
      if (seeded) log(`pins: the shared pins were empty: copied from ${options.config.pin.file}`);
    }
  } catch (error) {
    await receiptFile?.close();
    await store.close();
    await shared?.close();
    throw error;
  }
  const receipts = teeReceipts([...(receiptFile ? [receiptFile] : []), ...(shared ? [shared.receipts] : [])]);
  if (shared) log(`shared state: ${shared.label} (offloaded results, pins, receipt counters)`);
  // An existing file keeps its mode (it is the user's); a loose one is said once at start.
  for (const [file, holds] of [
    [options.storeFile, 'whole tool results'],
    [options.receiptsFile, 'a record of every call'],
  ] as const) {
    const warning = file ? sharedFileWarning(file, holds) : undefined;
    if (warning !== undefined) log(warning);
  }
  // Lines come from the config's own rules, so the set is bounded by its size.
  const logged = new Set<string>();
  const logOnce = (line: string): void => {
    if (logged.has(line)) return;
    logged.add(line);
    log(line);
  };
  const services: SessionServices = {
    config: options.config,
    upstreams: prepared.resolved,
    unavailable: prepared.unavailable,
    shaper: new ResultShaper({ store, key: options.key }),
    shareResults: shared !== undefined,
    receipts,
    listCodec: new CursorCodec(options.key ? { key: options.key } : {}),
    argumentSchemas: new SchemaCache(),
    timeouts: {
      startupMs: options.startupTimeoutMs ?? DEFAULT_TIMEOUTS.startupMs,
      requestMs: options.requestTimeoutMs ?? DEFAULT_TIMEOUTS.requestMs,
      clientRequestMs: options.clientRequestTimeoutMs ?? DEFAULT_TIMEOUTS.clientRequestMs,
    },
    log,
    logOnce,
    serverInfo: { name: 'mcpctx-gateway', version: options.version ?? '0.0.0' },
    pins: options.config.pin === undefined ? undefined : new PinStore({ ...options.config.pin, ...(shared ? { document: shared.pins } : {}) }, log, options.invocation),
    scanGate: new ScanGate(options.config.scan, log),
  };
  const sessions = new Set<GatewaySession>();
  const open = (session: GatewaySession): void => {
    sessions.add(session);
    void session.closed.then(() => sessions.delete(session));
  };
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  let stopFront: () => Promise<void> = async () => {};
  let url: string | undefined;
  try {
    if (options.front.kind === 'stdio') {
      const session = new GatewaySession(new StdioFront({ input: options.front.input, output: options.front.output }), services, prepared);
      open(session);
      void session.closed.then(() => finish());
    } else {
      const front = await startHttpFront({
        host: options.front.host,
        port: options.front.port,
        allowRemote: options.front.allowRemote,
        token: options.front.token,
        tokens: options.front.tokens,
        allowHosts: options.front.allowHosts,
        allowOrigins: options.front.allowOrigins,
        maxSessions: options.front.maxSessions,
        maxSessionsPerClient: options.front.maxSessionsPerClient,
        sessionIdleMs: options.front.sessionIdleMs,
        trustProxies: options.front.trustProxies,
        onConnection: (connection) => open(new GatewaySession(connection, services)),
      });
      url = front.url;
      stopFront = () => front.close();
    }
  } catch (error) {
    await receipts?.close();
    await store.close();
    await shared?.close();
    throw error;
  }
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      await stopFront();
      await Promise.allSettled([...sessions].map((session) => session.close()));
      await receipts?.close();
      await store.close();
      await shared?.close();
      finish();
    })();
    return closing;
  };
  return {
    url,
    get sessions() {
      return sessions.size;
    },
    done,
    close,
  };
}

