// Every transcript on a page re-derives. A ```console block is a transcript: a line starting with
// "$ " is a command, the lines after it (to the next command or the block's end) are its stdout.
// A page's transcripts run in order in one fresh folder that links the clone's dist, node_modules,
// examples, docs, test and package.json, so paths read as from the clone's root and what a command
// writes stays in that folder. Output is compared line by line after trailing whitespace is
// trimmed; "…" in an expected line matches any text within that line. The exit code is checked
// only when the block's info string says `exit=N`.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { markedEnv, waitForNoMarkedProcesses } from '../support/processes.js';
import { ROOT, parseMarkdown, readPage } from './_markdown.js';

const COMMAND_TIMEOUT_MS = 60_000;
/** After SIGTERM (the CLI then ends its servers), how long before SIGKILL. */
const KILL_GRACE_MS = 5_000;
const LINKED = ['dist', 'node_modules', 'examples', 'docs', 'test', 'package.json'];

interface Step {
  command: string;
  expected: string[];
  /** Where the command is: page and 1-based line. */
  line: number;
  exit: number | undefined;
}

function transcriptSteps(text: string): Step[] {
  const steps: Step[] = [];
  for (const block of parseMarkdown(text).codeBlocks) {
    if (block.lang !== 'console') continue;
    const exitAttribute = /(?:^|\s)exit=(\d+)(?:\s|$)/.exec(block.info);
    const exit = exitAttribute === null ? undefined : Number(exitAttribute[1]);
    block.lines.forEach((line, offset) => {
      if (line.startsWith('$ ')) steps.push({ command: line.slice(2), expected: [], line: block.firstLine + offset, exit });
      else steps.at(-1)?.expected.push(line);
    });
  }
  return steps;
}

/** Trailing whitespace of each line and trailing empty lines carry no meaning in a page. */
function normalized(lines: readonly string[]): string[] {
  const out = lines.map((line) => line.replace(/\s+$/, ''));
  while (out.length > 0 && out.at(-1) === '') out.pop();
  return out;
}

function matches(expected: string, actual: string): boolean {
  if (!expected.includes('…')) return expected === actual;
  const pattern = expected
    .split('…')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${pattern}$`, 's').test(actual);
}

/** A unified-style diff of expected (-) against actual (+), lines paired by longest common run. */
function lineDiff(expected: readonly string[], actual: readonly string[]): string {
  const rows = expected.length;
  const columns = actual.length;
  const common: number[][] = Array.from({ length: rows + 1 }, () => new Array<number>(columns + 1).fill(0));
  for (let i = rows - 1; i >= 0; i--) {
    for (let j = columns - 1; j >= 0; j--) {
      common[i]![j] = matches(expected[i]!, actual[j]!) ? common[i + 1]![j + 1]! + 1 : Math.max(common[i + 1]![j]!, common[i]![j + 1]!);
    }
  }
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < rows || j < columns) {
    if (i < rows && j < columns && matches(expected[i]!, actual[j]!)) {
      out.push(`  ${actual[j]}`);
      i++;
      j++;
    } else if (j < columns && (i === rows || common[i]![j + 1]! >= common[i + 1]![j]!)) {
      out.push(`+ ${actual[j++]}`);
    } else {
      out.push(`- ${expected[i++]}`);
    }
  }
  return out.join('\n');
}

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

/** Runs one command through bash in its own process group, bounded by the timeout. */
function run(command: string, cwd: string): Promise<Ran> {
  return new Promise((resolve, reject) => {
    // pipefail: a pipeline's exit code is that of its first command to fail, so `exit=N` can check
    // a command whose output is cut with `| head` or `| tail`.
    const child = spawn('bash', ['-o', 'pipefail', '-c', command], {
      cwd,
      // A minimal environment: what a fresh shell on any machine would have, nothing of ours.
      env: markedEnv({ PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: cwd, LANG: 'C.UTF-8', TZ: 'UTC' }),
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const group = child.pid;
    const signalGroup = (signal: NodeJS.Signals): void => {
      if (group === undefined) return;
      try {
        process.kill(-group, signal);
      } catch {
        // the group is gone already
      }
    };
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    let killer: NodeJS.Timeout | undefined;
    const timer = setTimeout(() => {
      timedOut = true;
      signalGroup('SIGTERM');
      killer = setTimeout(() => signalGroup('SIGKILL'), KILL_GRACE_MS);
    }, COMMAND_TIMEOUT_MS);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (killer !== undefined) clearTimeout(killer);
      // Whatever the command left behind in its group (a stray background job) ends with it.
      signalGroup('SIGKILL');
      resolve({ code, stdout, stderr, timedOut });
    });
  });
}

/** The pages whose transcripts run: README.md and the pages directly under docs/. */
function transcriptPages(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`);
  return ['README.md', ...docs].filter((page) => transcriptSteps(readPage(join(ROOT, page)).lines.join('\n')).length > 0);
}

afterAll(async () => {
  expect(await waitForNoMarkedProcesses(10_000)).toEqual([]);
});

describe('console transcripts in README.md and docs/', () => {
  const pages = transcriptPages();

  it('has transcripts to run', () => {
    expect(pages).toContain('README.md');
  });

  for (const page of pages) {
    const steps = transcriptSteps(readPage(join(ROOT, page)).lines.join('\n'));
    it(
      `${page}: ${steps.length} command(s) print what the page shows`,
      async () => {
        const dir = mkdtempSync(join(tmpdir(), 'mcpctx-docs-'));
        const failures: string[] = [];
        try {
          for (const name of LINKED) symlinkSync(join(ROOT, name), join(dir, name));
          for (const step of steps) {
            const ran = await run(step.command, dir);
            const actual = normalized(ran.stdout.split('\n'));
            const expected = normalized(step.expected);
            const same = actual.length === expected.length && expected.every((line, index) => matches(line, actual[index]!));
            const where = `${page}:${step.line}: $ ${step.command}`;
            if (ran.timedOut) failures.push(`${where}\n  did not end within ${COMMAND_TIMEOUT_MS / 1000} s (killed)`);
            if (step.exit !== undefined && ran.code !== step.exit) failures.push(`${where}\n  exit code ${ran.code}, the page says ${step.exit}\n  stderr: ${ran.stderr.slice(-2000)}`);
            if (!same) {
              const stderr = ran.stderr.trim() === '' ? '' : `\n(stderr, exit ${ran.code}:)\n${ran.stderr.slice(-2000)}`;
              failures.push(`${where}\n--- expected (the page)\n+++ actual (stdout)\n${lineDiff(expected, actual)}${stderr}`);
            }
          }
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
        if (failures.length > 0) throw new Error(`${failures.length} transcript command(s) differ:\n\n${failures.join('\n\n')}`);
      },
      steps.length * (COMMAND_TIMEOUT_MS + KILL_GRACE_MS) + 10_000,
    );
  }
});

describe('the transcript reader', () => {
  it('reads commands, their stdout and exit=N; only console blocks', () => {
    const text = ['```console exit=1', '$ echo a', 'a', '', '$ true', '```', '```sh', '$ not run', '```'].join('\n');
    expect(transcriptSteps(text)).toEqual([
      { command: 'echo a', expected: ['a', ''], line: 2, exit: 1 },
      { command: 'true', expected: [], line: 5, exit: 1 },
    ]);
  });

  it('matches … within one line only, and diffs expected against actual', () => {
    expect(matches('wrote … files', 'wrote 22 files')).toBe(true);
    expect(matches('wrote … files', 'wrote 22 things')).toBe(false);
    expect(lineDiff(['a', 'b …', 'c'], ['a', 'b 2', 'd'])).toBe('  a\n  b 2\n+ d\n- c');
  });
});
