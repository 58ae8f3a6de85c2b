export {
  BASE_ENV_NAMES,
  childEnvironment,
  credentialsInArgs,
  isEnvName,
  namesCredential,
  passedEnvNames,
  redactArgs,
  type LaunchSpec,
} from './_launch.js';
export { MCPCTX_CLIENT_INFO } from './_client-info.js';
export { JsonRpcError, jsonRpcErrorFrom } from './_jsonrpc-error.js';
export { Deadline, MAX_BUDGET_MS, checkBudgetMs } from './_deadline.js';
export { MIN_CAPTURE_SECRET_CHARS, Redactor } from './_redact.js';
export { DEFAULT_MAX_FRAME_BYTES, FrameSplitter } from './_frames.js';
export {
  BoundedStdioTransport,
  type BoundedTransport,
  type ExitStatus,
  type NonJsonLines,
  type StdioTransportOptions,
} from './_stdio-transport.js';
export {
  RawClient,
  type RawClientOptions,
  type RequestOptions,
  type ServerNotification,
  type ServerRequest,
  type ServerRequestHandler,
  type StrayResponses,
} from './_raw-client.js';
export {
  DECLARABLE_CAPABILITIES,
  DEFAULT_PROTOCOL_VERSION,
  KNOWN_PROTOCOL_VERSIONS,
  clientCapabilitiesFor,
  initialize,
  listAllTools,
  type DeclarableCapability,
  type InitializeOptions,
  type InitializeOutcome,
  type ListAllToolsOptions,
  type ToolPages,
} from './_session.js';
export { ServerSession, type ServerDiagnostics, type ServerSessionOptions } from './_server-session.js';
export {
  runServer,
  type ServerRun,
  type ServerRunOptions,
  type ServerRunTimings,
} from './_server-run.js';
export { HttpClientTransport, type HttpTransportOptions, type ListenState } from './_http-transport.js';
export { LegacySseClientTransport, type LegacySseTransportOptions } from './_legacy-sse-transport.js';
export { SseReader, type SseEvent } from './_sse-reader.js';
export { readBoundedBody } from './_http-body.js';
export { hasAuthorizationHeader, type BearerRefusal, type BearerSource } from './_bearer.js';
export {
  checkRemoteSpec,
  redactUrl,
  redactUrlIn,
  isRemoteSpec,
  resolveRemoteHeaders,
  type BearerResolver,
  type RemoteAuthMode,
  type RemoteDiagnostics,
  type RemoteSpec,
  type RemoteTransportKind,
  type ResolvedHeaders,
} from './_remote.js';
