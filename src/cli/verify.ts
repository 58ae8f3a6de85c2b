import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { verifyDirectory, verifyFile, type VerifyDifference, type VerifyReport } from '../measure/index.js';
import { printableText } from '../text/index.js';
import { exampleHelp } from './_help.js';
import { EXIT, type CliIo } from './_io.js';

export function setupVerify(command: Command, io: CliIo, setExit: (code: number) => void): void {
  command
    .description(
      [
        'Recompute canonical bytes, sha256, token totals, per-tool figures and the session-start load from the rawToolsCapture stored in a measurement file, and compare them with what it records. A measured or dynamic record without its capture and figures fails; so does a record whose capture was redacted before it was written (captureRedaction: its figures are real but cannot be re-derived from the file).',
        'A folder: every measurement.json under it, one line per file.',
        'Exit codes: 0 every figure re-derives; 1 a file fails (differences listed); 2 a folder with no measurement.json; 3 a named file cannot be read.',
      ].join('\n\n'),
    )
    .argument('<paths...>', 'measurement.json files written by mcpctx measure --out, or folders holding them')
    .option('--json', 'print the report as JSON: one object for one file, an array for a folder or several paths')
    .addHelpText('after', exampleHelp(io, 'verify results/server-memory/measurement.json'))
    .action(async (paths: string[], flags: { json?: boolean }) => {
      const reports: VerifyReport[] = [];
      let folders = 0;
      for (const path of paths) {
        const full = resolve(io.cwd, path);
        const folder = await stat(full).then((info) => info.isDirectory(), () => false);
        if (folder) folders += 1;
        reports.push(...(folder ? await verifyDirectory(full) : [await verifyFile(full)]));
      }
      const single = paths.length === 1 && folders === 0;
      if (flags.json) {
        io.stdout.write(`${JSON.stringify(single ? reports[0] : reports, null, 2)}\n`);
      } else {
        for (const report of reports) {
          // Notes and differences quote the file, which anyone may have edited: printed clean.
          io.stdout.write(`${printableText(`${report.ok ? 'ok' : 'FAILED'}: ${report.file ?? ''}: ${report.note}`, 'note')}\n`);
          for (const difference of report.differences) io.stdout.write(`  ${printableText(describeDifference(difference), 'note')}\n`);
        }
      }
      setExit(reports.every((report) => report.ok) ? EXIT.ok : EXIT.finding);
    });
}

/** `perTool[3] search_nodes: tokens recorded 323, recomputed 322`. */
function describeDifference(difference: VerifyDifference): string {
  const { tool } = difference;
  const where = tool ? `perTool[${tool.index}] ${JSON.stringify(tool.name)}: ${difference.field.replace(/^perTool\./, '')}` : difference.field;
  return `${where}: recorded ${brief(difference.recorded)}, recomputed ${brief(difference.recomputed)}`;
}

function brief(value: unknown): string {
  const text = JSON.stringify(value) ?? 'undefined';
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}
