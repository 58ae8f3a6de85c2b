// Builders for results states: a measurement record as a sweep writes it, and the servers list.
import type { IsolationKind, Measurement, RecordStatus } from '../../../src/measure/index.js';
import type { HistoryRow, PublishedServer, PublishedStatus, ResultsState } from '../../../src/results/index.js';

export interface RecordOptions {
  status?: RecordStatus;
  tokens?: number | null;
  tools?: number | null;
  note?: string;
  sessionStart?: number | null;
  /** Absent from the record when 'absent' (a record that predates capturing them). */
  instructions?: string | null | 'absent';
  isolation?: IsolationKind;
  perTool?: Measurement['perTool'];
}

export function record(name: string, options: RecordOptions = {}): Measurement {
  const status = options.status ?? 'measured';
  const hasNumber = status === 'measured' || status === 'dynamic';
  const tokens = options.tokens === undefined ? (hasNumber ? 100 : null) : options.tokens;
  const sessionStart = options.sessionStart === undefined ? (hasNumber ? 10 : null) : options.sessionStart;
  const measurement: Measurement = {
    methodology: 'mcpctx-catalog/v1',
    name,
    status,
    note: options.note ?? '',
    totalTokens: tokens,
    toolCount: options.tools === undefined ? (hasNumber ? 2 : null) : options.tools,
    canonicalSha256: hasNumber ? 'a'.repeat(64) : null,
    canonicalBytes: null,
    rawToolsCapture: null,
    captureRedaction: null,
    perTool: options.perTool ?? null,
    sessionStart: sessionStart === null ? null : { namesTokens: sessionStart, instructionsTokens: 0, total: sessionStart },
    serverInstructions: options.instructions === 'absent' ? null : (options.instructions ?? null),
    serverInfo: null,
    serverCapabilities: null,
    clientCapabilities: {},
    requestedProtocolVersion: '2025-11-25',
    launch: { command: 'node', args: [`${name}.js`], argsRedacted: 0, envNames: [] },
    isolation: { ...(options.isolation ? { kind: options.isolation } : {}), mode: 'minimal-env', platform: 'linux', arch: 'x64', node: 'v20' },
    tokenizer: { name: 'gpt-tokenizer', version: '4.0.0', encoding: 'o200k_base' },
    measuredAt: '2026-09-01T00:00:00.000Z',
    timings: { startMs: 0, initializeMs: 0, listMs: 0, countMs: 0, closeMs: 0, totalMs: 0, elapsedMs: 0 },
    attempts: [],
  };
  if (options.instructions === 'absent') delete (measurement as Partial<Measurement>).serverInstructions;
  return measurement;
}

export function server(name: string, options: RecordOptions & { published?: PublishedStatus } = {}): PublishedServer {
  const status = options.published ?? options.status ?? 'measured';
  if (status === 'not-yet-run') return { name, status, measurement: null, lastMeasured: null, vectors: { method: 'tool-vectors/v1', server: name, vectors: [] } };
  return {
    name,
    status,
    measurement: record(name, { ...options, status }),
    lastMeasured: '2026-09-01',
    vectors: { method: 'tool-vectors/v1', server: name, vectors: [] },
  };
}

export function state(servers: PublishedServer[], history: HistoryRow[] = []): ResultsState {
  return { servers, history };
}

export function historyRow(server: string, date: string, tokens: number | null, isolation: IsolationKind | null = 'host'): HistoryRow {
  return {
    date,
    server,
    status: tokens === null ? 'timeout' : 'measured',
    tools: tokens === null ? null : 2,
    tokens,
    canonicalSha256: null,
    isolation,
  };
}
