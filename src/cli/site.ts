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
        'Build a static site from RESULTS, a folder written by mcpctx sweep: index.html (the leaderboard, sortable by every column, filterable by server, package, tool name or description, with band colours, badges, a sparkline per server and the reason and stderr of each failure), servers/<name>.html (per-tool breakdown in four parts, full descriptions and schemas, package and npm link, launch, isolation, canonical hash, session-start load, history, failure and stderr, badge snippets and the verify command), regressions.html (servers failing after a measurement, then cost movements) and methodology.html, written from the constants the code measures with. leaderboard.json and history.csv are copied in as downloads.',
        'Plain HTML, one stylesheet and a small script; nothing is fetched, so the site works from file:// and from any static host. The same results give the same bytes.',
        'Every file is checked before anything is written. --out must be a new or empty folder, or one mcpctx site wrote before (its site files are replaced).',
        'Exit codes: 0 built; 2 usage error (a missing results folder, or an --out folder holding other files); 3 a results file is missing or malformed, or the site cannot be written.',
      ].join('\n\n'),
    )
    .argument('<results>', 'the results folder (leaderboard.json, history.csv, <server>/measurement.json, badges/)')
    .requiredOption('--out <dir>', 'the folder to write the site to')
    .option('--base-url <url>', 'the http(s) address the site is published at, for absolute addresses in the badge snippets (default: none, the snippets use addresses relative to the site)')
    .option('--json', 'print the report as JSON')
    .addHelpText('after', exampleHelp(io, 'site results --out site'))
    .action(async (results: string, flags: { out: string; baseUrl?: string; json?: boolean }) => {
      const report = await buildSite({
        resultsDir: resolve(io.cwd, results),
        outDir: resolve(io.cwd, flags.out),
        ...(flags.baseUrl === undefined ? {} : { baseUrl: flags.baseUrl }),
      });
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
