// A results/ folder as a sweep would leave it: a handful of servers with every kind of row the
// site shows (measured stdio and remote, failures, never swept, an old record without isolation
// kind) and one server whose name, note, tool name and description are hostile markup.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeBadge } from 'badge-maker';
import { bandFor, catalogCost, measurementJson, safeSegment, type Measurement, type RecordStatus } from '../../../src/measure/index.js';
import type { HistoryRow, SweepRecord } from '../../../src/results/index.js';
import { historyCsv } from '../../../src/results/history/index.js';
import type { Leaderboard, LeaderboardRow } from '../../../src/results/leaderboard/index.js';

export const HOSTILE = '<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">';
export const HOSTILE_TOOL = '<b onmouseover=alert(1)>grab</b>';
/** A failed server's last words, hostile and over several lines. */
export const STDERR_TAIL = `npm warn exec installing\nError: Cannot find module 'sharp'\n    at load (<anonymous>)\n</pre><script>window.__pwned=3</script>\nnode exited with code 1`;
/** A word that only one tool's description holds (alpha's tool_1), and a tool name only beta-remote lists. */
export const DESCRIPTION_WORD = 'xylophone';
export const LISTED_TOOL = 'search_7';
/** Properties of a schema too large to show whole (the hostile server's `huge` tool). */
export const HUGE_PROPERTIES = 1500;

function tools(count: number, descriptionWords: number, prefix = 'tool'): unknown[] {
  return Array.from({ length: count }, (_, index) => ({
    name: `${prefix}_${index}`,
    description: `Does thing ${index}. ${'word '.repeat(descriptionWords * (index + 1))}`.trim(),
    inputSchema: { type: 'object', properties: { query: { type: 'string', description: 'what to look for' } }, required: ['query'] },
  }));
}

interface ServerSpec {
  name: string;
  status: RecordStatus | 'not-yet-run';
  capture?: unknown[];
  instructions?: string | null;
  note?: string;
  launch?: Measurement['launch'] | { url: string; headerNames: string[]; envNames: string[] };
  isolationKind?: 'host' | 'docker' | 'absent';
  lastMeasured?: string;
  history?: Array<Pick<HistoryRow, 'date' | 'tokens' | 'isolation'> & { status?: RecordStatus }>;
  badge?: boolean;
  stderrTail?: string;
}

/** alpha's catalog: tool_0 declares an output schema, tool_1's description holds DESCRIPTION_WORD. */
function alphaTools(): unknown[] {
  const [first, second, ...rest] = tools(3, 80) as Array<Record<string, unknown>>;
  const outputSchema = { type: 'object', properties: { matches: { type: 'array', items: { type: 'object', properties: { id: { type: 'string' }, score: { type: 'number' } } } } } };
  return [{ ...first, outputSchema }, { ...second, description: `Tunes the ${DESCRIPTION_WORD}. ${String(second?.description)}` }, ...rest];
}

function hugeTool(): unknown {
  const properties = Object.fromEntries(Array.from({ length: HUGE_PROPERTIES }, (_, index) => [`field_${index}`, { type: 'string', description: `the value of field ${index}` }]));
  return { name: 'huge', description: 'A tool with a very large schema.', inputSchema: { type: 'object', properties } };
}

export const SWEEP_DATE = '2026-11-30';

export const SPECS: readonly ServerSpec[] = [
  {
    name: 'alpha',
    status: 'measured',
    capture: alphaTools(),
    instructions: 'Use tool_0 first.',
    lastMeasured: '2026-11-30',
    history: [
      { date: '2026-11-16', tokens: 150, isolation: 'host' },
      { date: '2026-11-23', tokens: 170, isolation: 'host' },
    ],
  },
  {
    name: 'beta-remote',
    status: 'measured',
    capture: tools(12, 60, 'search'),
    launch: { url: 'https://mcp.example.com/mcp?team=a&b=<c>', headerNames: ['Authorization'], envNames: ['BETA_TOKEN'] },
    isolationKind: 'docker',
    lastMeasured: '2026-11-30',
    history: [
      { date: '2026-11-09', tokens: 900, isolation: 'host' },
      { date: '2026-11-16', tokens: 4_900, isolation: 'docker' },
      { date: '2026-11-23', tokens: 5_300, isolation: 'docker' },
    ],
  },
  {
    name: HOSTILE,
    status: 'measured',
    capture: [{ name: HOSTILE_TOOL, description: `</td></tr></table>${HOSTILE}`, inputSchema: { type: 'object', description: HOSTILE } }, ...tools(1, 4), hugeTool()],
    note: `note with ${HOSTILE}`,
    lastMeasured: '2026-11-30',
  },
  { name: 'gamma', status: 'timeout', note: 'no answer within 60,000 ms (retried once with a doubled budget)', lastMeasured: '2026-11-30', stderrTail: '' },
  {
    name: 'epsilon',
    status: 'startup-failure',
    note: 'exited with code 1 before initialize',
    stderrTail: STDERR_TAIL,
    isolationKind: 'absent',
    lastMeasured: '2026-11-30',
    history: [{ date: '2026-11-23', tokens: 2_000, isolation: null, status: 'measured' }],
  },
  { name: 'zeta', status: 'not-applicable', note: 'needs a PostgreSQL server: ECONNREFUSED', lastMeasured: '2026-11-30' },
  { name: 'delta', status: 'not-yet-run', badge: false },
];

function measurement(spec: ServerSpec): Measurement {
  const measured = spec.status === 'measured' && spec.capture !== undefined;
  const cost = measured ? catalogCost(spec.capture ?? [], spec.instructions ?? null) : null;
  const kind = spec.isolationKind ?? 'host';
  return {
    methodology: 'mcpctx-catalog/v1',
    name: spec.name,
    status: spec.status as RecordStatus,
    note: spec.note ?? '',
    totalTokens: cost?.totalTokens ?? null,
    toolCount: cost?.toolCount ?? null,
    canonicalSha256: cost?.canonicalSha256 ?? null,
    canonicalBytes: cost?.canonicalBytes ?? null,
    rawToolsCapture: measured ? (spec.capture ?? null) : null,
    captureRedaction: null,
    perTool: cost?.perTool ?? null,
    sessionStart: cost?.sessionStart ?? null,
    serverInstructions: spec.instructions ?? null,
    serverInfo: { name: 'fixture', version: '1.0.0' },
    serverCapabilities: { tools: {} },
    clientCapabilities: {},
    requestedProtocolVersion: '2025-11-25',
    launch: (spec.launch ?? { command: 'npx', args: ['-y', `${spec.name.replace(/[^a-z-]/g, '')}-mcp@1.0.0`, '--dir', "/tmp/it's here"], argsRedacted: 0, envNames: ['HOME_DIR'] }) as Measurement['launch'],
    isolation: { ...(kind === 'absent' ? {} : { kind }), mode: 'minimal-env', platform: 'linux', arch: 'x64', node: '20.19.0' },
    tokenizer: { name: 'gpt-tokenizer', version: '3.0.0', encoding: 'o200k_base' },
    measuredAt: `${spec.lastMeasured ?? SWEEP_DATE}T06:0${SPECS.indexOf(spec)}:00.000Z`,
    timings: { elapsedMs: 1200 } as Measurement['timings'],
    attempts: [],
    ...(spec.stderrTail === undefined ? {} : { stderrTail: spec.stderrTail }),
  };
}

export interface Fixture {
  leaderboard: Leaderboard;
  measurements: Map<string, Measurement>;
}

/** Writes the results folder into `dir` and returns what it wrote. */
export async function writeResultsFixture(dir: string): Promise<Fixture> {
  const measurements = new Map<string, Measurement>();
  const history: HistoryRow[] = [];
  const rows: LeaderboardRow[] = [];
  await mkdir(join(dir, 'badges'), { recursive: true });
  for (const spec of SPECS) {
    const record = spec.status === 'not-yet-run' ? null : measurement(spec);
    const isolation = spec.isolationKind === 'absent' ? null : (spec.isolationKind ?? 'host');
    for (const past of spec.history ?? []) {
      history.push({ date: past.date, server: spec.name, status: past.status ?? 'measured', tools: 3, tokens: past.tokens, canonicalSha256: null, isolation: past.isolation });
    }
    if (record !== null) {
      measurements.set(spec.name, record);
      await mkdir(join(dir, safeSegment(spec.name)), { recursive: true });
      await writeFile(join(dir, safeSegment(spec.name), 'measurement.json'), measurementJson(record));
      history.push({ date: spec.lastMeasured ?? '2026-11-30', server: spec.name, status: record.status, tools: record.toolCount, tokens: record.totalTokens, canonicalSha256: record.canonicalSha256, isolation });
    }
    const tokens = record?.totalTokens ?? null;
    const previous = spec.history?.at(-1)?.tokens ?? null;
    const comparable = spec.history?.at(-1)?.isolation === isolation;
    rows.push({
      rank: null,
      server: spec.name,
      status: spec.status,
      band: tokens === null ? null : bandFor(tokens),
      tools: record?.toolCount ?? null,
      tokens,
      sessionStart: record?.sessionStart?.total ?? null,
      sessionStartFloor: record !== null && record.serverInstructions === null,
      lastMeasured: spec.lastMeasured ?? null,
      trend:
        tokens !== null && previous !== null && comparable
          ? { direction: tokens > previous ? 'up' : tokens < previous ? 'down' : 'flat', delta: tokens - previous, from: spec.history?.at(-1)?.date ?? '' }
          : null,
      isolation: record === null ? null : isolation,
      canonicalSha256: record?.canonicalSha256 ?? null,
      note: spec.note ?? '',
    });
    if (spec.badge !== false) {
      const message = tokens === null ? spec.status : `${tokens.toLocaleString('en-US')} tokens`;
      await writeFile(join(dir, 'badges', `${safeSegment(spec.name)}.svg`), makeBadge({ label: 'context cost', message, color: tokens === null ? 'lightgrey' : bandFor(tokens) }));
    }
  }
  const ranked = rows.filter((row) => row.tokens !== null).sort((a, b) => (a.tokens as number) - (b.tokens as number));
  ranked.forEach((row, index) => (row.rank = index + 1));
  const ordered = [...ranked, ...rows.filter((row) => row.tokens === null)];
  const leaderboard: Leaderboard = { method: 'leaderboard/v1', methodology: 'mcpctx-catalog/v1', tokenizer: 'o200k_base', servers: rows.length, measured: ranked.length, rows: ordered };
  await writeFile(join(dir, 'leaderboard.json'), `${JSON.stringify(leaderboard, null, 2)}\n`);
  await writeFile(join(dir, 'history.csv'), historyCsv(history));
  const sweep: SweepRecord = { method: 'sweep/v1', date: SWEEP_DATE, servers: SPECS.map((spec) => ({ name: spec.name, status: spec.status, swept: spec.status !== 'not-yet-run', note: '' })) };
  await writeFile(join(dir, 'sweep.json'), `${JSON.stringify(sweep, null, 2)}\n`);
  return { leaderboard, measurements };
}
