// `npm run bench [-- filter]`: runs every bench/<name>.bench.ts in turn, prints its table on
// stdout and writes bench/results/<name>.json. Progress goes to stderr, and only to a terminal.
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { pathToFileURL } from 'node:url';
import { type BenchModule, type BenchReport, PROJECT_ROOT, formatTable } from './_harness.js';

const BENCH_DIR = `${PROJECT_ROOT}bench/`;
const RESULTS_DIR = `${BENCH_DIR}results/`;
const SUFFIX = '.bench.ts';

function machine(): Record<string, unknown> {
  const cpuList = cpus();
  return {
    node: process.version,
    platform: process.platform,
    arch: process.arch,
    cpuModel: cpuList[0]?.model.trim() ?? 'unknown',
    cores: cpuList.length,
  };
}

function progressTo(name: string): (message: string) => void {
  if (!process.stderr.isTTY) return () => {};
  return (message) => {
    process.stderr.write(`[${name}] ${message}\n`);
  };
}

function isBenchModule(value: unknown): value is BenchModule {
  return typeof value === 'object' && value !== null && typeof (value as { run?: unknown }).run === 'function';
}

async function main(): Promise<number> {
  const args = process.argv.slice(2).filter((arg) => arg !== '--');
  // --json: each benchmark's results object on stdout (one JSON document per line) instead of its table.
  const json = args.includes('--json');
  const filters = args.filter((arg) => arg !== '--json');
  const names = readdirSync(BENCH_DIR)
    .filter((file) => file.endsWith(SUFFIX))
    .map((file) => file.slice(0, -SUFFIX.length))
    .sort();
  const selected = filters.length === 0 ? names : names.filter((name) => filters.some((filter) => name.includes(filter)));
  if (selected.length === 0) {
    process.stderr.write(`no benchmark matches ${filters.join(', ')}; there are: ${names.join(', ')}\n`);
    return 2;
  }

  let failed = 0;
  for (const name of selected) {
    const progress = progressTo(name);
    progress('starting');
    let report: BenchReport;
    try {
      const loaded: unknown = await import(pathToFileURL(`${BENCH_DIR}${name}${SUFFIX}`).href);
      if (!isBenchModule(loaded)) throw new Error(`bench/${name}${SUFFIX} does not export run()`);
      report = await loaded.run({ progress });
    } catch (error) {
      failed += 1;
      const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
      process.stderr.write(`benchmark ${name} FAILED: ${message}\n`);
      continue;
    }
    const result = {
      benchmark: name,
      title: report.title,
      measuredAt: new Date().toISOString(),
      machine: machine(),
      figures: report.figures,
      table: report.table,
      notes: report.notes ?? [],
    };
    mkdirSync(RESULTS_DIR, { recursive: true });
    const file = `${RESULTS_DIR}${name}.json`;
    writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
    if (json) {
      process.stdout.write(`${JSON.stringify(result)}\n`);
      continue;
    }
    const lines = [`## ${name}: ${report.title}`, '', formatTable(report.table), ''];
    for (const note of report.notes ?? []) lines.push(`- ${note}`);
    lines.push(`- written to bench/results/${name}.json`, '');
    process.stdout.write(`${lines.join('\n')}\n`);
  }
  return failed === 0 ? 0 : 1;
}

process.exitCode = await main();
