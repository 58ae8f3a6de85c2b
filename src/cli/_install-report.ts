// What `hook install|uninstall` and `optimizer install|uninstall` share in the CLI: the path of
// the built CLI the installed commands run, and the report as people read it.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { McpctxError } from '../errors/index.js';
import type { InstallReport } from '../host/claude-code/index.js';

/** This package's built CLI, which the installed hook commands and the server entry run. */
export function builtMain(command: string): string {
  const main = fileURLToPath(new URL('./main.js', import.meta.url));
  if (!existsSync(main)) throw new McpctxError('USAGE', `${command} writes the path of the built CLI, and ${main} does not exist: run npm run build, then the install from dist/cli/main.js.`);
  return main;
}

/** The report: each file's change and entries, and on a dry run the settings diff that would be written. */
export function renderInstallReport(report: InstallReport, title: string): string {
  const lines = [`${title}${report.dryRun ? ' (dry run: nothing written)' : ''}: Claude Code, ${report.scope} scope`];
  for (const file of report.files) {
    lines.push(`  ${file.file}: ${file.change}${file.backup === undefined ? '' : ` (backup ${file.backup})`}`);
    for (const entry of file.entries) lines.push(`    ${entry}`);
  }
  if (report.hookCommand !== undefined) lines.push(`  hook command: ${report.hookCommand}`);
  lines.push(`  record: ${report.stateFile}`);
  for (const note of report.notes) lines.push(`note: ${note}`);
  if (report.dryRun) for (const file of report.files) if (file.diff !== undefined && file.diff !== '') lines.push('', file.diff.trimEnd());
  return `${lines.join('\n')}\n`;
}
