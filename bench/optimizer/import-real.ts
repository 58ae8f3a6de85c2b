// Turns the real session data copied into bench/optimizer/fixtures/ into the benchmark's real
// scenarios (bench/optimizer/scenarios/real-*.json), deterministically: the same fixtures give
// the same bytes. Run `npx tsx bench/optimizer/import-real.ts` after changing this file; a test
// checks that the committed files equal what this produces.
//
// - jest: a session in jest's own `e2e/failures` fixture project. `npx jest` there prints the
//   failure blocks recorded in failures.test.ts.snap; the session runs it twice, runs single
//   suites, and has unrelated jest output (config, coverage, console) as noise.
// - SWE-agent: each trajectory's steps become an assistant message (thought + action) and a tool
//   output (observation; command = the action's first line), after the system prompt, any
//   demonstration and the issue message. The session stops before the first step that changed
//   the patched file: the moment the fix still has to be written, which is what the final patch
//   tells. Required facts come from that patch: the file path, the function or class named in
//   the hunk header, and every removed line (the code that had to change), each as it appears
//   in the session. Relevant records: the tool outputs that show the patched file (views, edit
//   attempts, tracebacks through it).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import type { MessageRecord, SessionRecords, ToolOutputRecord } from '../../src/optimizer/_types.js';
import { parseSweTrajectory, sweIssueText, type SweStep } from '../../src/optimizer/transcripts/index.js';
import { PROJECT_ROOT } from '../_harness.js';
import { type BenchScenario, SCENARIO_DIR, scenarioFileText } from './_scenarios.js';

const FIXTURES = `${PROJECT_ROOT}bench/optimizer/fixtures/`;
const JEST_DIR = 'bench/optimizer/fixtures/jest-failure-output';
const SWE_DIR = 'bench/optimizer/fixtures/swe-agent-trajectories';

function readFixture(relativePath: string): string {
  return readFileSync(`${FIXTURES}${relativePath}`, 'utf8');
}

/** ISO time `minutes` (and seconds) after the session's start. */
function timeAfter(start: string, minutes: number, seconds = 0): string {
  return new Date(Date.parse(start) + (minutes * 60 + seconds) * 1000).toISOString();
}

// ---- jest ------------------------------------------------------------------------------------

/** The entries of a jest `.snap` file: name -> the recorded string, template-literal escapes undone. */
export function parseJestSnapshot(text: string): Map<string, string> {
  const entries = new Map<string, string>();
  const readTemplate = (from: number, terminator: string): { value: string; end: number } => {
    let value = '';
    let index = from;
    while (index < text.length) {
      const char = text[index] as string;
      if (char === '\\' && index + 1 < text.length) {
        value += text[index + 1];
        index += 2;
        continue;
      }
      if (text.startsWith(terminator, index)) return { value, end: index + terminator.length };
      value += char;
      index += 1;
    }
    throw new Error(`unterminated snapshot entry after offset ${from}`);
  };
  const opener = 'exports[`';
  for (let at = text.indexOf(opener); at !== -1; at = text.indexOf(opener, at)) {
    const name = readTemplate(at + opener.length, '`] = `');
    const body = readTemplate(name.end, '`;');
    let value = body.value;
    if (value.startsWith('\n') && value.endsWith('\n')) value = value.slice(1, -1);
    // Strings are printed inside double quotes (inner quotes are not escaped).
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    entries.set(name.value, value);
    at = body.end;
  }
  return entries;
}

function snapshotEntry(entries: ReadonlyMap<string, string>, name: string, file: string): string {
  const value = entries.get(name);
  if (value === undefined) throw new Error(`${file} has no entry "${name}"`);
  return value;
}

/** The FAIL blocks of one `npx jest` run of the e2e/failures project, in test path order. */
function failuresRunOutput(entries: ReadonlyMap<string, string>): string {
  const blocks = [...entries.values()].filter((value) => value.startsWith('FAIL __tests__/'));
  const pathOf = (block: string): string => block.slice(0, block.indexOf('\n') === -1 ? block.length : block.indexOf('\n'));
  return blocks.sort((a, b) => (pathOf(a) < pathOf(b) ? -1 : pathOf(a) > pathOf(b) ? 1 : 0)).join('\n\n');
}

function jestScenario(): BenchScenario {
  const failures = parseJestSnapshot(readFixture('jest-failure-output/failures.test.ts.snap'));
  const consoleEntries = parseJestSnapshot(readFixture('jest-failure-output/console.test.ts.snap'));
  const coverage = parseJestSnapshot(readFixture('jest-failure-output/coverageReport.test.ts.snap'));
  const config = parseJestSnapshot(readFixture('jest-failure-output/showConfig.test.ts.snap'));
  const failing = (name: string): string => snapshotEntry(failures, name, 'failures.test.ts.snap');
  const start = '2026-08-21T09:00:00.000Z';
  const fullRun = failuresRunOutput(failures);

  const messages: MessageRecord[] = [
    {
      id: 'user-task',
      role: 'user',
      timestamp: timeAfter(start, 0),
      text:
        '`npx jest` is red in e2e/failures since the last merge. Please take __tests__/asyncFailures.test.js: ' +
        'the `reject, but fail` case there is the one blocking the release branch. Leave the other suites alone, ' +
        'they belong to the assertion-formatting work that is still in progress.',
    },
    { id: 'plan-1', role: 'assistant', timestamp: timeAfter(start, 1), text: 'I will run the whole suite first to see what fails right now.' },
    {
      id: 'plan-2',
      role: 'assistant',
      timestamp: timeAfter(start, 4),
      text:
        'Thirteen suites fail. Before looking at the async file I want to know which config is in effect ' +
        '(transform, test environment, reporters), and whether the long node-assert suite fails the same way when it runs alone.',
    },
    {
      id: 'plan-3',
      role: 'assistant',
      timestamp: timeAfter(start, 12),
      text:
        'The config is the default one and the assert suite fails the same way alone. Coverage and the console ' +
        'suite look normal. Re-running everything after pulling main, then the async suite on its own.',
    },
    { id: 'plan-4', role: 'assistant', timestamp: timeAfter(start, 17), text: 'Now reading __tests__/asyncFailures.test.js to see what the test expects from the promise.' },
  ];
  const toolOutputs: ToolOutputRecord[] = [
    { id: 'jest-all-1', command: 'npx jest', exitCode: 1, timestamp: timeAfter(start, 2), output: fullRun },
    { id: 'show-config', command: 'npx jest --showConfig', exitCode: 0, timestamp: timeAfter(start, 5), output: snapshotEntry(config, '--showConfig outputs config info and exits 1', 'showConfig.test.ts.snap') },
    { id: 'jest-assert', command: 'npx jest __tests__/assertionError.test.js', exitCode: 1, timestamp: timeAfter(start, 7), output: failing('works with node assert 1') },
    { id: 'jest-during', command: 'npx jest __tests__/duringTests.test.js', exitCode: 1, timestamp: timeAfter(start, 8), output: failing('not throwing Error objects 5') },
    {
      id: 'jest-coverage',
      command: 'npx jest --coverage',
      exitCode: 0,
      timestamp: timeAfter(start, 10),
      output: snapshotEntry(coverage, 'outputs coverage report 1', 'coverageReport.test.ts.snap'),
    },
    {
      id: 'jest-console',
      command: 'npx jest __tests__/console.test.js',
      exitCode: 0,
      timestamp: timeAfter(start, 11),
      output: `${snapshotEntry(consoleEntries, 'console printing 1', 'console.test.ts.snap')}\n${snapshotEntry(consoleEntries, 'console printing 2', 'console.test.ts.snap')}`,
    },
    { id: 'jest-all-2', command: 'npx jest', exitCode: 1, timestamp: timeAfter(start, 14), output: fullRun },
    { id: 'jest-async', command: 'npx jest __tests__/asyncFailures.test.js', exitCode: 1, timestamp: timeAfter(start, 16), output: failing('works with async failures 1') },
  ];
  return {
    name: 'real-jest-async-failures',
    description:
      "A session in jest's e2e/failures fixture project built from jest's recorded CLI output: the full `npx jest` run (13 failing suites, " +
      'recorded in failures.test.ts.snap) twice, three single-suite runs, and unrelated jest output as noise (--showConfig, a coverage ' +
      'table, console output of a passing suite). The task is one failing test; its failure block is in both full runs and in the single run.',
    source: `real: ${JEST_DIR}`,
    task: 'Fix the failing jest test `reject, but fail` in __tests__/asyncFailures.test.js.',
    tokenBudget: 2500,
    records: { messages, toolOutputs },
    requiredFacts: ['● reject, but fail', 'expect(received).rejects.toEqual(expected) // deep equality', 'at Object.toEqual (__tests__/asyncFailures.test.js:14:48)'],
    relevantRecords: ['user-task', 'jest-all-2', 'jest-async'],
  };
}

// ---- SWE-agent trajectories ------------------------------------------------------------------

interface PatchFacts {
  path: string;
  hunkName: string;
  removedLines: string[];
}

function patchFacts(patch: string): PatchFacts {
  const lines = patch.replace(/\r\n/g, '\n').split('\n');
  const path = lines.find((line) => line.startsWith('+++ b/'))?.slice('+++ b/'.length);
  const hunkName = lines
    .filter((line) => line.startsWith('@@'))
    .map((line) => /\b(?:def|class|function)\s+([A-Za-z_]\w*)/.exec(line.replace(/^@@[^@]*@@/, ''))?.[1])
    .find((name) => name !== undefined);
  if (path === undefined || hunkName === undefined) throw new Error('the patch names no file or no function/class in its hunk header');
  const removedLines = lines.filter((line) => line.startsWith('-') && !line.startsWith('---')).map((line) => line.slice(1).trim()).filter((line) => line !== '');
  return { path, hunkName, removedLines };
}

interface TrajectorySpec {
  name: string;
  file: string;
  /** The `.patch` file, when there is one; else the trajectory's own submission. */
  patchFile?: string;
  start: string;
  tokenBudget: number;
  summary: string;
}

function trajectoryScenario(spec: TrajectorySpec): BenchScenario {
  const trajectory = parseSweTrajectory(readFixture(`swe-agent-trajectories/${spec.file}`));
  const patch = spec.patchFile !== undefined ? readFixture(`swe-agent-trajectories/${spec.patchFile}`) : trajectory.submission;
  if (patch === undefined || patch.trim() === '') throw new Error(`${spec.file}: no patch`);
  const facts = patchFacts(patch);

  const [system, ...rest] = trajectory.history;
  if (system?.role !== 'system') throw new Error(`${spec.file}: history does not start with the system prompt`);
  const demonstrations = rest.filter((message) => message.role === 'user' && message.isDemo);
  const issueMessage = rest.find((message) => message.role === 'user' && !message.isDemo);
  if (issueMessage === undefined) throw new Error(`${spec.file}: no issue message`);
  const issueText = issueMessage.text;
  if (!/ISSUE:\n[\s\S]*?\n+INSTRUCTIONS:/.test(issueText.replace(/\r\n/g, '\n'))) throw new Error(`${spec.file}: the issue message has no ISSUE:/INSTRUCTIONS: sections`);
  const issue = sweIssueText(issueText);

  const changesPatchedFile = (step: SweStep): boolean =>
    /^edit\b/.test(step.action.trim()) && step.observation.includes(facts.path) && !step.observation.includes('have NOT been applied');
  const cut = trajectory.steps.findIndex(changesPatchedFile);
  if (cut === -1) throw new Error(`${spec.file}: no step changes ${facts.path}`);
  const steps = trajectory.steps.slice(0, cut);

  const messages: MessageRecord[] = [
    { id: 'system-prompt', role: 'system', timestamp: timeAfter(spec.start, 0), text: system.text },
    ...demonstrations.map((message, index): MessageRecord => ({
      id: demonstrations.length === 1 ? 'demonstration' : `demonstration-${index + 1}`,
      role: 'user',
      timestamp: timeAfter(spec.start, 0, 1),
      text: message.text,
    })),
    { id: 'issue', role: 'user', timestamp: timeAfter(spec.start, 0, 2), text: issueText },
  ];
  const toolOutputs: ToolOutputRecord[] = [];
  const relevantRecords: string[] = [];
  steps.forEach((step, index) => {
    const number = String(index + 1).padStart(2, '0');
    const action = step.action.trim();
    messages.push({ id: `step-${number}-thought`, role: 'assistant', timestamp: timeAfter(spec.start, index + 1), text: `${step.thought.trim()}\n\n\`\`\`\n${action}\n\`\`\`` });
    const id = `step-${number}-output`;
    toolOutputs.push({ id, command: action.split('\n')[0] as string, timestamp: timeAfter(spec.start, index + 1, 30), output: step.observation });
    if (step.observation.includes(facts.path)) relevantRecords.push(id);
  });

  const requiredFacts = [facts.path, facts.hunkName, ...facts.removedLines];
  const sessionTexts = [...messages.map((message) => message.text), ...toolOutputs.map((output) => output.output)];
  for (const fact of requiredFacts) {
    if (!sessionTexts.some((text) => text.includes(fact))) throw new Error(`${spec.file}: the fact "${fact}" does not appear in the session before the fix`);
  }
  const records: SessionRecords = { messages, toolOutputs };
  return {
    name: spec.name,
    description:
      `${spec.summary} Converted from the SWE-agent trajectory: system prompt, ${demonstrations.length > 0 ? 'the demonstration, ' : ''}the issue, ` +
      `then steps 1-${steps.length} of ${trajectory.steps.length} (the session stops before step ${cut + 1}, the edit that changed ${facts.path}). ` +
      'Timestamps are synthetic (one minute per step): the trajectory has none. Required facts come from the final patch.',
    source: `real: ${SWE_DIR}/${spec.file}`,
    task: issue,
    tokenBudget: spec.tokenBudget,
    records,
    requiredFacts,
    relevantRecords,
  };
}

export function buildRealScenarios(): BenchScenario[] {
  return [
    jestScenario(),
    trajectoryScenario({
      name: 'real-swe-marshmallow-1867',
      file: 'replay_function_calling_replace_from_source__marshmallow-code__marshmallow-1867.traj',
      start: '2024-10-02T14:00:00.000Z',
      tokenBudget: 1500,
      summary: 'marshmallow TimeDelta serialization rounds 345 ms down to 344 (replayed demonstration, real tool output incl. a pip install log).',
    }),
    trajectoryScenario({
      name: 'real-swe-pydicom-1458',
      file: 'gpt4__pydicom__pydicom-1458.traj',
      patchFile: 'gpt4__pydicom__pydicom-1458.patch',
      start: '2024-05-13T10:00:00.000Z',
      tokenBudget: 2500,
      summary: 'pydicom: the NumPy pixel data handler requires PixelRepresentation, which Float Pixel Data must not have (a real GPT-4 run: a traceback and three rejected edits).',
    }),
  ];
}

/** File name -> exact text of every real scenario file. */
export function realScenarioFiles(): Map<string, string> {
  return new Map(buildRealScenarios().map((scenario) => [`${scenario.name}.json`, scenarioFileText(scenario)]));
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  mkdirSync(SCENARIO_DIR, { recursive: true });
  for (const [file, text] of realScenarioFiles()) {
    writeFileSync(`${SCENARIO_DIR}${file}`, text);
    process.stdout.write(`wrote bench/optimizer/scenarios/${file}\n`);
  }
}
