// Every option a page shows exists: each --flag of a command line that invokes the CLI (in a code
// block or an inline code span) and each --flag in the first cell of an options table is checked
// against the --help of exactly that command path (`gateway pins`, `sweep merge`), read in-process.
// A command the CLI does not have is a failure too.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCliCaptured } from '../support/cli-run.js';
import { ROOT, docPages, parseMarkdown, readPage, tableCells, type MarkdownPage } from './_markdown.js';

interface CommandInfo {
  options: Set<string>;
  subcommands: Map<string, CommandInfo>;
  /** Whether the usage line names arguments: without any, a word after the command is a command name. */
  takesArguments: boolean;
}

/** Long option names and subcommand names of one `--help` text (commander's layout). */
function parseHelp(help: string): { options: Set<string>; subcommands: string[]; takesArguments: boolean } {
  const options = new Set<string>(['--help']);
  const usage = /^Usage: (.*)$/m.exec(help)?.[1] ?? '';
  const takesArguments = /<[^>]+>|\[(?!options\]|command\])[^\]]+\]/.test(usage);
  const subcommands: string[] = [];
  let section = '';
  for (const line of help.split('\n')) {
    const heading = /^(\w[\w ]*):\s*$/.exec(line);
    if (heading !== null) {
      section = heading[1]!;
      continue;
    }
    // Entries are indented by exactly two spaces; wrapped descriptions are indented further.
    const entry = /^ {2}(\S.*)$/.exec(line);
    if (entry === null) continue;
    if (section === 'Options') {
      for (const match of entry[1]!.split(/\s{2,}/)[0]!.matchAll(/--[\w-]+/g)) options.add(match[0]);
    } else if (section === 'Commands') {
      const name = /^([\w-]+)/.exec(entry[1]!)?.[1];
      if (name !== undefined && name !== 'help') subcommands.push(name);
    }
  }
  return { options, subcommands, takesArguments };
}

async function readCommand(path: readonly string[]): Promise<CommandInfo> {
  const run = await runCliCaptured([...path, '--help']);
  if (run.code !== 0) throw new Error(`mcpctx ${path.join(' ')} --help exited ${run.code}: ${run.stderr}`);
  const { options, subcommands, takesArguments } = parseHelp(run.stdout);
  const info: CommandInfo = { options, subcommands: new Map(), takesArguments };
  for (const name of subcommands) info.subcommands.set(name, await readCommand([...path, name]));
  return info;
}

let program: CommandInfo;
beforeAll(async () => {
  program = await readCommand([]);
  program.options.add('--version');
});

/** Where the CLI is invoked in a line: `node dist/cli/main.js`, `npx mcpctx`, bare `mcpctx`. */
const INVOCATION = /(?:^|[\s"'`(=])(?:\S*dist\/cli\/main\.js["']?|mcpctx)(?=\s)/g;
/** What ends the CLI's own arguments: the server command after `--`, or the shell's syntax. */
const END = new Set(['--', '|', '||', '&&', ';', '>', '2>', '>>', '2>&1', '#']);

interface Use {
  path: string[];
  flags: string[];
  line: number;
  source: string;
}

/** Each invocation in `text`: its command path (subcommands resolved) and its --flags. */
function invocations(text: string, line: number): Use[] {
  const uses: Use[] = [];
  for (const match of text.matchAll(INVOCATION)) {
    const words = text
      .slice(match.index + match[0].length)
      .trim()
      .split(/\s+/)
      .filter((word) => word !== '' && word !== '\\');
    const stop = words.findIndex((word) => END.has(word) || /^[|;&>]/.test(word));
    // Punctuation that ends a sentence or a heading is not part of a command name.
    const own = (stop < 0 ? words : words.slice(0, stop)).map((word) => (word.startsWith('-') ? word : word.replace(/[:,;.)]+$/, '')));
    const first = own[0];
    // `mcpctx` alone, or followed by a flag only (`mcpctx --version`), names no command.
    if (first === undefined || first.startsWith('-')) {
      if (first !== undefined) uses.push({ path: [], flags: flagsOf(own), line, source: text.trim() });
      continue;
    }
    // Words that are not commands (`mcpctx.`, `mcpctx's`) are prose, not an invocation.
    if (!/^[a-z][\w-]*$/.test(first)) continue;
    const path = [first];
    let index = 1;
    for (;;) {
      const next = own[index];
      if (next === undefined || next.startsWith('-') || !subcommandsOf(path).has(next)) break;
      path.push(next);
      index++;
    }
    // A word where a subcommand could stand names an unknown one when the command takes no
    // arguments, or when it is a near miss of a subcommand (`gateway reports`).
    const next = own[index];
    const command = lookup(path);
    if (next !== undefined && !next.startsWith('-') && command !== undefined && command.subcommands.size > 0) {
      const near = [...command.subcommands.keys()].some((name) => editDistance(name, next) <= 2);
      if (!command.takesArguments || near) path.push(next);
    }
    uses.push({ path, flags: flagsOf(own.slice(index)), line, source: text.trim() });
  }
  return uses;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

function flagsOf(words: readonly string[]): string[] {
  return words.filter((word) => /^--[a-z][\w-]*/.test(word)).map((word) => word.replace(/[=,.:)'"`\]].*$/, ''));
}

function subcommandsOf(path: readonly string[]): Map<string, CommandInfo> {
  return lookup(path)?.subcommands ?? new Map();
}

function lookup(path: readonly string[]): CommandInfo | undefined {
  let info: CommandInfo | undefined = program;
  for (const name of path) info = info?.subcommands.get(name);
  return info;
}

/** Options tables: a table whose first header cell is "option", for the command its heading names. */
function tableUses(page: MarkdownPage): Use[] {
  const uses: Use[] = [];
  const prose = page.prose;
  for (let index = 0; index < prose.length; index++) {
    const header = tableCells(prose[index]!);
    const rule = prose[index + 1];
    if (header === undefined || rule === undefined || !/^\s*\|?\s*:?-{3,}/.test(rule)) continue;
    if (!/^options?$/i.test(header[0]!.replace(/`/g, ''))) continue;
    const heading = [...page.headings].reverse().find((candidate) => candidate.line <= index + 1 && invocations(` ${candidate.text} `, candidate.line).length > 0);
    const path = heading === undefined ? undefined : invocations(` ${heading.text} `, heading.line)[0]!.path;
    for (let row = index + 2; row < prose.length; row++) {
      const cells = tableCells(prose[row]!);
      if (cells === undefined) break;
      const flags = [...cells[0]!.matchAll(/--[a-z][\w-]*/g)].map((flag) => flag[0]);
      if (path === undefined) uses.push({ path: ['(no command in the heading above the table)'], flags, line: row + 1, source: prose[row]!.trim() });
      else uses.push({ path, flags, line: row + 1, source: prose[row]!.trim() });
    }
  }
  return uses;
}

function usesOf(page: MarkdownPage): Use[] {
  const uses: Use[] = [];
  for (const block of page.codeBlocks) {
    // A command continued with a trailing backslash is one command line.
    let pending = '';
    let start = 0;
    block.lines.forEach((text, offset) => {
      // A transcript's output lines are what the CLI printed, not commands given to it.
      if (pending === '' && block.lang === 'console' && !text.startsWith('$ ')) return;
      if (pending === '') start = block.firstLine + offset;
      pending += ` ${text.replace(/\\\s*$/, '')}`;
      if (/\\\s*$/.test(text)) return;
      uses.push(...invocations(`${pending} `, start));
      pending = '';
    });
    if (pending !== '') uses.push(...invocations(`${pending} `, start));
  }
  for (const code of page.inlineCode) uses.push(...invocations(` ${code.text} `, code.line));
  return [...uses, ...tableUses(page)];
}

function problemsOf(use: Use): string[] {
  const command = lookup(use.path);
  const name = ['mcpctx', ...use.path].join(' ');
  if (command === undefined) return [`line ${use.line}: ${name}: no such command (${use.source})`];
  return use.flags.filter((flag) => !command.options.has(flag)).map((flag) => `line ${use.line}: ${name} has no ${flag} (${use.source})`);
}

describe('options shown in README.md and docs/', () => {
  it('reads the command tree from --help', () => {
    expect(lookup(['gateway', 'pins'])?.options.has('--approve-all')).toBe(true);
    expect(lookup(['sweep', 'merge'])?.options.has('--out')).toBe(true);
    expect(lookup(['audit'])?.options.has('--no-measure')).toBe(true);
  });

  it.each(docPages())('%s: every --flag exists in its command', (file) => {
    const page = readPage(join(ROOT, file));
    expect(usesOf(page).flatMap(problemsOf)).toEqual([]);
  });

  it('sees flags in code, inline code and tables, and stops at the server command', () => {
    const uses = invocations(' node dist/cli/main.js measure --jsn --out r -- npx -y server --bogus ', 1);
    expect(uses.flatMap(problemsOf)).toEqual(['line 1: mcpctx measure has no --jsn (node dist/cli/main.js measure --jsn --out r -- npx -y server --bogus)']);
    expect(invocations(' npx mcpctx gateway pins p.json --approve-all ', 1)[0]?.path).toEqual(['gateway', 'pins']);
    expect(invocations(' mcpctx frobnicate ', 1).flatMap(problemsOf)[0]).toContain('no such command');
    expect(invocations(' mcpctx gateway reports r.jsonl ', 1).flatMap(problemsOf)[0]).toContain('mcpctx gateway reports: no such command');
    expect(invocations(' mcpctx experiment verfy r.json ', 1).flatMap(problemsOf)[0]).toContain('no such command');
    expect(invocations(' mcpctx sweep examples/servers.yaml --out r ', 1).flatMap(problemsOf)).toEqual([]);
    const page = parseMarkdown(
      ['## `mcpctx sweep merge`: shards', '', '| option | what |', '|---|---|', '| `--out DIR`, `--jsonn` | x |', '', 'Run `node dist/cli/main.js site r --outt s`.', '```sh', 'npx mcpctx routing verify r.json --jsn', '```'].join('\n'),
    );
    expect(usesOf(page).flatMap(problemsOf)).toEqual([
      'line 9: mcpctx routing verify has no --jsn (npx mcpctx routing verify r.json --jsn)',
      'line 7: mcpctx site has no --outt (node dist/cli/main.js site r --outt s)',
      'line 5: mcpctx sweep merge has no --jsonn (| `--out DIR`, `--jsonn` | x |)',
    ]);
  });
});
