// Every command's and subcommand's --help, as a user reads it: each option says its default (or
// what its absence means) and the help ends with one example spelled with the words that started
// mcpctx. Commands are found by reading the help itself ("Commands:"), so a new command is held to
// the same rule without touching this file.
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';

const INVOCATION = 'node dist/cli/main.js';

async function help(path: readonly string[]): Promise<string> {
  let stdout = '';
  const code = await runCli([...path, '--help'], {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: () => true, isTTY: false },
    cwd: process.cwd(),
    env: {},
    invocation: INVOCATION,
  });
  expect(code, `${path.join(' ')} --help`).toBe(0);
  return stdout;
}

/** The entries of one section ("Options:", "Commands:"): an entry starts at two spaces, its wrapped lines are indented deeper. */
function section(text: string, title: string): string[] {
  const lines = text.split('\n');
  const start = lines.indexOf(`${title}:`);
  if (start === -1) return [];
  const entries: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (line.trim() === '') break;
    if (/^ {2}\S/.test(line)) entries.push(line.trim());
    else if (entries.length > 0) entries[entries.length - 1] += ` ${line.trim()}`;
  }
  return entries;
}

/** Every command path, walked from the top-level help. */
async function commandPaths(): Promise<string[][]> {
  const paths: string[][] = [];
  const visit = async (path: string[]): Promise<void> => {
    for (const entry of section(await help(path), 'Commands')) {
      const name = entry.split(/\s+/)[0] ?? '';
      if (name === 'help' || name === '') continue;
      paths.push([...path, name]);
      await visit([...path, name]);
    }
  };
  await visit([]);
  return paths;
}

describe('--help of every command', () => {
  it('finds the commands and their subcommands', async () => {
    const paths = (await commandPaths()).map((path) => path.join(' '));
    expect(paths).toEqual(expect.arrayContaining(['measure', 'verify', 'gateway', 'gateway check', 'gateway pins', 'gateway report', 'optimizer serve', 'sweep merge', 'experiment verify', 'routing verify']));
  });

  it('gives every option its default, or says it is required', async () => {
    const missing: string[] = [];
    for (const path of await commandPaths()) {
      for (const option of section(await help(path), 'Options')) {
        if (/^-h, --help\b/.test(option)) continue;
        if (!/[(,] ?default: [^)]/.test(option) && !option.endsWith('(required)')) missing.push(`${path.join(' ')}: ${option}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('ends with one example that starts the way mcpctx was started', async () => {
    const without: string[] = [];
    for (const path of await commandPaths()) {
      const text = await help(path);
      const example = /\nExample(?: \([^)]*\))?:\n {2}\$ (.+)\n?$/.exec(text);
      if (example?.[1] === undefined || !example[1].startsWith(`${INVOCATION} ${path.join(' ')}`)) without.push(path.join(' '));
    }
    expect(without).toEqual([]);
  });

  it('names the program as it was started in the usage line', async () => {
    expect(await help(['measure'])).toMatch(new RegExp(`^Usage: ${INVOCATION} measure `));
  });
});
