// The leaderboard's rows: ranking, ordering of the rest, session-start floors, trends and bands.
import { describe, expect, it } from 'vitest';
import { RECORD_STATUSES } from '../../../src/measure/index.js';
import type { PublishedStatus } from '../../../src/results/index.js';
import { LEADERBOARD_METHOD, leaderboard, leaderboardJson } from '../../../src/results/leaderboard/index.js';
import { historyRow, server, state } from './_state.js';

const ALL_STATUSES: PublishedStatus[] = [...RECORD_STATUSES, 'not-yet-run'];

describe('leaderboard ranking and order', () => {
  it('ranks measured and dynamic servers by tokens, fewest first, ties broken by name', () => {
    const board = leaderboard(
      state([
        server('zeta', { tokens: 500 }),
        server('alpha', { tokens: 2_000 }),
        server('mid', { tokens: 500, status: 'dynamic' }),
        server('beta', { tokens: 500 }),
        server('tiny', { tokens: 2 }),
      ]),
    );
    expect(board.rows.map((row) => [row.rank, row.server])).toEqual([
      [1, 'tiny'],
      [2, 'beta'],
      [3, 'mid'],
      [4, 'zeta'],
      [5, 'alpha'],
    ]);
    expect(board).toMatchObject({ method: LEADERBOARD_METHOD, methodology: 'mcpctx-catalog/v1', tokenizer: 'o200k_base', servers: 5, measured: 5 });
  });

  it('lists every status exactly once as a row: ranked first, the rest by status, then by name', () => {
    const servers = ALL_STATUSES.flatMap((status) => [server(`b-${status}`, { published: status }), server(`a-${status}`, { published: status })]);
    const board = leaderboard(state(servers.reverse()));
    expect(board.servers).toBe(ALL_STATUSES.length * 2);
    expect(board.measured).toBe(4);
    expect(board.rows.map((row) => row.server)).toEqual([
      'a-dynamic',
      'a-measured',
      'b-dynamic',
      'b-measured',
      ...ALL_STATUSES.filter((status) => status !== 'measured' && status !== 'dynamic').flatMap((status) => [`a-${status}`, `b-${status}`]),
    ]);
    for (const status of ALL_STATUSES) expect(board.rows.filter((row) => row.status === status)).toHaveLength(2);
    const unranked = board.rows.filter((row) => row.rank === null);
    expect(unranked).toHaveLength(ALL_STATUSES.length * 2 - 4);
    for (const row of unranked) expect(row).toMatchObject({ band: null, tokens: null, tools: null, trend: null });
  });

  it('gives a not-yet-run server a row with nothing measured', () => {
    const [row] = leaderboard(state([server('later', { published: 'not-yet-run' })])).rows;
    expect(row).toEqual({
      rank: null,
      server: 'later',
      status: 'not-yet-run',
      band: null,
      tools: null,
      tokens: null,
      sessionStart: null,
      sessionStartFloor: false,
      lastMeasured: null,
      trend: null,
      isolation: null,
      canonicalSha256: null,
      note: '',
    });
  });

  it('carries a failure note, isolation and hash, the note made one printable line', () => {
    const [failed, measured] = leaderboard(
      state([server('broken', { status: 'timeout', note: 'no answer\r\nwithin \u001b[31m30 s\u0007' }), server('ok', { isolation: 'docker' })]),
    ).rows.slice().reverse();
    expect(failed).toMatchObject({ status: 'timeout', note: 'no answer within 30 s', isolation: null });
    expect(measured).toMatchObject({ isolation: 'docker', canonicalSha256: 'a'.repeat(64), lastMeasured: '2026-09-01' });
  });

  it('is deterministic: the servers list order does not change a byte', () => {
    const servers = [server('a', { tokens: 9 }), server('b', { status: 'timeout' }), server('c', { tokens: 3 }), server('d', { published: 'not-yet-run' })];
    const json = leaderboardJson(state(servers));
    expect(leaderboardJson(state([...servers].reverse()))).toBe(json);
    expect(json.endsWith('}\n')).toBe(true);
    expect(JSON.parse(json)).toEqual(leaderboard(state(servers)));
  });
});

describe('session start', () => {
  it('is a floor (≥) only when the record has no serverInstructions field', () => {
    const rows = leaderboard(
      state([
        server('old', { tokens: 1, sessionStart: 30, instructions: 'absent' }),
        server('none', { tokens: 2, sessionStart: 20, instructions: null }),
        server('some', { tokens: 3, sessionStart: 90, instructions: 'Use the tools wisely.' }),
      ]),
    ).rows;
    expect(rows.map((row) => [row.server, row.sessionStart, row.sessionStartFloor])).toEqual([
      ['old', 30, true],
      ['none', 20, false],
      ['some', 90, false],
    ]);
  });

  it('is never a floor without a session-start figure', () => {
    const [row] = leaderboard(state([server('bare', { sessionStart: null, instructions: 'absent' })])).rows;
    expect(row).toMatchObject({ sessionStart: null, sessionStartFloor: false });
  });
});

describe('trend', () => {
  const trendOf = (history: ReturnType<typeof historyRow>[]) => leaderboard(state([server('s')], history)).rows[0]?.trend;

  it('is up, down or flat from the last two points, dated from the older one', () => {
    expect(trendOf([historyRow('s', '2026-08-01', 100), historyRow('s', '2026-08-08', 90), historyRow('s', '2026-08-15', 130)])).toEqual({
      direction: 'up',
      delta: 40,
      from: '2026-08-08',
    });
    expect(trendOf([historyRow('s', '2026-08-08', 130), historyRow('s', '2026-08-15', 100)])).toEqual({ direction: 'down', delta: -30, from: '2026-08-08' });
    expect(trendOf([historyRow('s', '2026-08-08', 100), historyRow('s', '2026-08-15', 100)])).toEqual({ direction: 'flat', delta: 0, from: '2026-08-08' });
  });

  it('is null with fewer than two points, and a failed sweep gives no point', () => {
    expect(trendOf([])).toBeNull();
    expect(trendOf([historyRow('s', '2026-08-15', 100)])).toBeNull();
    expect(trendOf([historyRow('s', '2026-08-08', null), historyRow('s', '2026-08-15', 100)])).toBeNull();
    expect(trendOf([historyRow('s', '2026-08-01', 80), historyRow('s', '2026-08-08', null), historyRow('s', '2026-08-15', 100)])).toEqual({
      direction: 'up',
      delta: 20,
      from: '2026-08-01',
    });
  });

  it('only spans sweeps under the same isolation; unknown isolation neither starts nor breaks the run', () => {
    expect(trendOf([historyRow('s', '2026-08-01', 50, 'docker'), historyRow('s', '2026-08-08', 100, 'host')])).toBeNull();
    expect(
      trendOf([historyRow('s', '2026-08-01', 50, 'docker'), historyRow('s', '2026-08-08', 100, 'host'), historyRow('s', '2026-08-15', 120, 'host')]),
    ).toEqual({ direction: 'up', delta: 20, from: '2026-08-08' });
    expect(trendOf([historyRow('s', '2026-08-08', 100, null), historyRow('s', '2026-08-15', 90, 'host')])).toEqual({
      direction: 'down',
      delta: -10,
      from: '2026-08-08',
    });
  });

  it("reads only the server's own history", () => {
    expect(trendOf([historyRow('other', '2026-08-08', 10), historyRow('s', '2026-08-15', 100)])).toBeNull();
  });
});

describe('bands', () => {
  it('follow the limits exactly', () => {
    const cases: Array<[number, string]> = [
      [0, 'brightgreen'],
      [999, 'brightgreen'],
      [1_000, 'green'],
      [4_999, 'green'],
      [5_000, 'yellow'],
      [14_999, 'yellow'],
      [15_000, 'orange'],
      [29_999, 'orange'],
      [30_000, 'red'],
      [54_422, 'red'],
    ];
    const rows = leaderboard(state(cases.map(([tokens]) => server(`s${String(tokens).padStart(6, '0')}`, { tokens })))).rows;
    expect(rows.map((row) => [row.tokens, row.band])).toEqual(cases);
  });
});
