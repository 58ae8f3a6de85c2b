import { resolve } from 'node:path';
import type { Command } from 'commander';
import { verifyFile } from '../measure/index.js';
import { EXIT, type CliIo } from './_io.js';

export function registerVerify(program: Command, io: CliIo, setExit: (code: number) => void): void {
  program
    .command('verify')
    .summary('re-derive the figures of a measurement.json from its capture')
    .description(
      [
        'Recompute canonical bytes, sha256, token totals, per-tool figures and the session-start load from the rawToolsCapture stored in a measurement file, and compare them with what it records.',
        'Exit codes: 0 every figure re-derives; 1 a difference (listed); 3 the file cannot be read.',
      ].join('\n\n'),
    )
    .argument('<file>', 'a measurement.json written by mcpctx measure --out')
    .option('--json', 'print the verification report as JSON')
    .action(async (file: string, flags: { json?: boolean }) => {
      const report = await verifyFile(resolve(io.cwd, file));
      if (flags.json) {
        io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
      } else {
        io.stdout.write(`${report.ok ? 'ok' : 'FAILED'}: ${file}: ${report.note}\n`);
        for (const difference of report.differences) {
          io.stdout.write(`  ${difference.field}: recorded ${brief(difference.recorded)}, recomputed ${brief(difference.recomputed)}\n`);
        }
      }
      setExit(report.ok ? EXIT.ok : EXIT.finding);
    });
}

function brief(value: unknown): string {
  const text = JSON.stringify(value) ?? 'undefined';
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}
