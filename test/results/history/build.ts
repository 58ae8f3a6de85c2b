// Builds published state the way a sweep does: real catalogs counted by catalogCost, each sweep
// appending its history row and tool vector through the functions under test.
import { catalogCost, type IsolationKind, type Measurement, type RecordStatus } from '../../../src/measure/index.js';
import type { HistoryRow, IsoDate, PublishedServer, ResultsState, ToolVectorsFile } from '../../../src/results/index.js';
import { appendHistory, emptyToolVectors, historyRowFor, recordToolVector } from '../../../src/results/history/index.js';

export interface ToolSpec {
  name: string;
  description: string;
  properties?: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
}

export function tool(name: string, description: string, properties: Record<string, unknown> = {}, outputSchema?: Record<string, unknown>): ToolSpec {
  return { name, description, properties, ...(outputSchema === undefined ? {} : { outputSchema }) };
}

/** `count` plain words: a description that grows by a known amount of text. */
export function words(count: number, word = 'detail'): string {
  return Array.from({ length: count }, (_, index) => `${word}${index}`).join(' ');
}

export function catalog(specs: readonly ToolSpec[]): unknown[] {
  return specs.map((spec) => ({
    name: spec.name,
    description: spec.description,
    inputSchema: { type: 'object', properties: spec.properties ?? {} },
    ...(spec.outputSchema === undefined ? {} : { outputSchema: spec.outputSchema }),
  }));
}

/** A record as `measure` writes it; `kind` null makes a record from before isolation.kind existed. */
export function measured(server: string, specs: readonly ToolSpec[], kind: IsolationKind | null = 'host', status: RecordStatus = 'measured'): Measurement {
  const tools = catalog(specs);
  const cost = catalogCost(tools, null);
  return {
    ...base(server, status, kind),
    totalTokens: cost.totalTokens,
    toolCount: cost.toolCount,
    canonicalSha256: cost.canonicalSha256,
    canonicalBytes: cost.canonicalBytes,
    rawToolsCapture: tools,
    perTool: cost.perTool,
    sessionStart: cost.sessionStart,
  };
}

export function failed(server: string, status: RecordStatus, kind: IsolationKind | null = 'host'): Measurement {
  return base(server, status, kind);
}

function base(server: string, status: RecordStatus, kind: IsolationKind | null): Measurement {
  return {
    methodology: 'mcpctx-catalog/v1',
    name: server,
    status,
    note: status,
    totalTokens: null,
    toolCount: null,
    canonicalSha256: null,
    canonicalBytes: null,
    rawToolsCapture: null,
    captureRedaction: null,
    perTool: null,
    sessionStart: null,
    serverInstructions: null,
    serverInfo: null,
    serverCapabilities: null,
    clientCapabilities: {},
    requestedProtocolVersion: '2025-11-25',
    launch: { command: 'npx', args: ['-y', server], argsRedacted: 0, envNames: [] },
    isolation: { ...(kind === null ? {} : { kind }), mode: 'minimal-env', platform: 'linux', arch: 'x64', node: 'v20' },
    tokenizer: { name: 'gpt-tokenizer', version: '4.0.0', encoding: 'o200k_base' },
    measuredAt: '2026-08-01T00:00:00.000Z',
    timings: { startMs: 0, initializeMs: 0, listMs: 0, countMs: 0, closeMs: 0, totalMs: 0, elapsedMs: 0 },
    attempts: [],
  } as Measurement;
}

/**
 * Sweeps recorded one by one, then read back as the state every derived file comes from. Each
 * record is a sweep of its own, numbered in order, unless `sweep` says which (null: a sweep from
 * before sweeps were numbered).
 */
export class Sweeps {
  private history: HistoryRow[] = [];
  private readonly servers = new Map<string, { measurement: Measurement; date: IsoDate; vectors: ToolVectorsFile }>();
  private sweeps = 0;

  record(date: IsoDate, measurement: Measurement, options: { vectors?: boolean; sweep?: number | null } = {}): this {
    this.sweeps += 1;
    const sweep = options.sweep === null ? undefined : (options.sweep ?? this.sweeps);
    this.history = appendHistory(this.history, [historyRowFor(measurement, date, sweep)]);
    const held = this.servers.get(measurement.name)?.vectors ?? emptyToolVectors(measurement.name);
    const vectors = options.vectors === false ? held : recordToolVector(held, measurement, date, sweep);
    this.servers.set(measurement.name, { measurement, date, vectors });
    return this;
  }

  state(): ResultsState {
    const servers: PublishedServer[] = [...this.servers.entries()].map(([name, { measurement, date, vectors }]) => ({
      name,
      status: measurement.status,
      measurement,
      lastMeasured: date,
      vectors,
    }));
    return { servers, history: this.history };
  }
}
