// `mcpctx sweep` over 50 scripted servers (normal mode, one capture each): wall time with
// --concurrency 4 against --concurrency 1, interleaved rounds, each into a fresh results folder.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { sweep } from '../src/results/sweep/index.js';
import { type BenchContext, type BenchReport, PROJECT_ROOT, median, round } from './_harness.js';

const SERVERS = 50;
const ROUNDS = 3;
const CONCURRENCIES = [1, 4] as const;

export async function run({ progress }: BenchContext): Promise<BenchReport> {
  const dir = mkdtempSync(join(tmpdir(), 'mcpctx-bench-sweep-'));
  try {
    const file = join(dir, 'servers.yaml');
    const entries = Array.from({ length: SERVERS }, (_, index) => ({
      name: `scripted-${String(index + 1).padStart(2, '0')}`,
      command: process.execPath,
      args: [`${PROJECT_ROOT}test/servers/scripted-server.mjs`, 'normal'],
      runs: 1,
    }));
    writeFileSync(file, stringify(entries));
    const samples: Record<number, number[]> = { 1: [], 4: [] };
    for (let round = 0; round < ROUNDS; round += 1) {
      // Alternate which goes first, so neither always runs on a warmer machine.
      const order = round % 2 === 0 ? CONCURRENCIES : [...CONCURRENCIES].reverse();
      for (const concurrency of order) {
        const outDir = join(dir, `out-${round}-${concurrency}`);
        const started = performance.now();
        const report = await sweep({ serversFile: file, outDir, concurrency });
        const wallMs = performance.now() - started;
        const measured = report.servers.filter((server) => server.status === 'measured').length;
        if (measured !== SERVERS) throw new Error(`concurrency ${concurrency}: ${measured} of ${SERVERS} servers measured`);
        samples[concurrency]?.push(wallMs);
        progress(`round ${round + 1}/${ROUNDS}, concurrency ${concurrency}: ${Math.round(wallMs)} ms`);
      }
    }
    const sequential = median(samples[1] ?? []);
    const parallel = median(samples[4] ?? []);
    const speedup = sequential / parallel;
    return {
      title: `sweep of ${SERVERS} scripted servers: --concurrency 4 against --concurrency 1 (wall time)`,
      table: {
        columns: ['concurrency', 'median ms', 'ms per server', 'speed-up'],
        rows: [
          ['1', round(sequential, 0), round(sequential / SERVERS, 1), 1],
          ['4', round(parallel, 0), round(parallel / SERVERS, 1), round(speedup, 2)],
        ],
      },
      figures: {
        servers: SERVERS,
        rounds: ROUNDS,
        concurrency1: { medianMs: round(sequential, 1), samplesMs: (samples[1] ?? []).map((value) => round(value, 1)) },
        concurrency4: { medianMs: round(parallel, 1), samplesMs: (samples[4] ?? []).map((value) => round(value, 1)) },
        speedup: round(speedup, 3),
      },
      notes: [
        'Each sweep writes a fresh results folder (every file included in the time); one capture per server (runs: 1).',
        'Servers are Node processes: on a machine with C cores the speed-up is bounded by about C, whatever K is.',
      ],
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
