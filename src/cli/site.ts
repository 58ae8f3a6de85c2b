import { resolve } from 'node:path';
import type { Command } from 'commander';
import { plural, printableText } from '../text/index.js';
import { buildSite } from '../results/site/index.js';
import { exampleHelp } from './_help.js';
import { EXIT, type CliIo } from './_io.js';

export function setupSite(command: Command, io: CliIo, setExit: (code: number) => void): void {
  command
    .description(
      [
        'Build a static site from RESULTS, a folder written by mcpctx sweep: index.html (the leaderboard, sortable by every column, filterable by name, with band colours, badges and a sparkline per server), servers/<name>.html (per-tool breakdown, launch, isolation, canonical hash, session-start load, history, note and the verify command) and methodology.html, written from the constants the code measures with.',
        'Plain HTML, one stylesheet and a small script; nothing is fetched, so the site works from file:// and from any static host. The same results give the same bytes.',
        'Every file is checked before anything is written. --out must be a new or empty folder, or one mcpctx site wrote before (its site files are replaced).',
        'Exit codes: 0 built; 2 usage error (a missing results folder, or an --out folder holding other files); 3 a results file is missing or malformed, or the site cannot be written.',
      ].join('\n\n'),
    )
    .argument('<results>', 'the results folder (leaderboard.json, history.csv, <server>/measurement.json, badges/)')
    .requiredOption('--out <dir>', 'the folder to write the site to')
    .option('--json', 'print the report as JSON')
    .addHelpText('after', exampleHelp(io, 'site results --out site'))
    .action(async (results: string, flags: { out: string; json?: boolean }) => {
      const report = await buildSite({ resultsDir: resolve(io.cwd, results), outDir: resolve(io.cwd, flags.out) });
      if (flags.json) {
        io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
      } else {
        io.stdout.write(`wrote ${plural(report.pages.length, 'page')} and ${plural(report.badges, 'badge')} to ${printableText(report.outDir, 'note')}\n`);
        if (report.badgesMissing.length > 0) {
          const names = report.badgesMissing.map((name) => printableText(name, 'note')).join(', ');
          io.stdout.write(`no badge in the results for: ${names}\n`);
        }
        io.stdout.write(`open ${report.indexUrl}\n`);
      }
      setExit(EXIT.ok);
    });
}
