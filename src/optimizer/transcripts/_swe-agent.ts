// SWE-agent trajectories (`.traj`): one JSON object with `trajectory` (steps, each with `thought`,
// `action`, `observation`), `history` (the messages sent to the model: the system prompt, any
// demonstrations marked `is_demo`, the issue, then the turns) and `info` (the `submission` patch).
// Trajectories carry no times; ids are the step numbers.

import { McpctxError } from '../../errors/index.js';
import { isPlainObject, ownValue, type JsonObject } from '../../json/index.js';
import { type RecordCollector } from './_collect.js';
import { countSkipped, parseBoundedJson } from './_lines.js';

export interface SweStep {
  thought: string;
  action: string;
  observation: string;
}

export interface SweHistoryMessage {
  role: string;
  text: string;
  isDemo: boolean;
}

export interface SweTrajectory {
  steps: SweStep[];
  history: SweHistoryMessage[];
  /** The final patch, when the run submitted one. */
  submission?: string;
}

/** History content is a string, or (function-calling format) a list of text parts. */
function contentText(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  return content.map((part) => (isPlainObject(part) && typeof ownValue(part, 'text') === 'string' ? (ownValue(part, 'text') as string) : '')).join('');
}

function invalid(message: string): never {
  throw new McpctxError('INVALID_ARGUMENT', `not a SWE-agent trajectory: ${message}`);
}

/** The steps, history and submission of a `.traj` text; throws INVALID_ARGUMENT when it is not one. */
export function parseSweTrajectory(text: string): SweTrajectory {
  const parsed = parseBoundedJson(text.startsWith('\uFEFF') ? text.slice(1) : text);
  if ('problem' in parsed) invalid(parsed.problem === 'too-deep' ? 'nested too deep' : 'not JSON');
  const document = parsed.value;
  if (!isPlainObject(document)) invalid('not a JSON object');
  const rawSteps = ownValue(document, 'trajectory');
  if (!Array.isArray(rawSteps)) invalid('no "trajectory" array');
  const field = (step: JsonObject, key: string): string => {
    const value = ownValue(step, key);
    return typeof value === 'string' ? value : '';
  };
  const steps = rawSteps.filter(isPlainObject).map((step) => ({ thought: field(step, 'thought'), action: field(step, 'action'), observation: field(step, 'observation') }));
  const rawHistory = ownValue(document, 'history');
  const history: SweHistoryMessage[] = [];
  if (Array.isArray(rawHistory)) {
    for (const message of rawHistory) {
      if (!isPlainObject(message)) continue;
      const role = ownValue(message, 'role');
      const content = contentText(ownValue(message, 'content'));
      if (typeof role !== 'string' || content === undefined) continue;
      history.push({ role, text: content, isDemo: ownValue(message, 'is_demo') === true });
    }
  }
  const info = ownValue(document, 'info');
  const submission = isPlainObject(info) ? ownValue(info, 'submission') : undefined;
  return { steps, history, ...(typeof submission === 'string' && submission.trim() !== '' ? { submission } : {}) };
}

const ISSUE_MARK = 'ISSUE:\n';
const INSTRUCTIONS_MARK = '\nINSTRUCTIONS:';

/**
 * The issue text of the task message (between `ISSUE:` and `INSTRUCTIONS:`), else the whole message.
 * Found with indexOf, not a lazy regex: one that retried from every `ISSUE:` line of a peer's text
 * took quadratic time.
 */
export function sweIssueText(message: string): string {
  const normalized = message.replace(/\r\n/g, '\n');
  const start = normalized.indexOf(ISSUE_MARK);
  const end = start === -1 ? -1 : normalized.indexOf(INSTRUCTIONS_MARK, start + ISSUE_MARK.length);
  return end === -1 ? normalized.trim() : normalized.slice(start + ISSUE_MARK.length, end).trim();
}

const PYTHON_TRACEBACK = /Traceback \(most recent call last\)/;

export interface SweResult {
  lastUserRequest?: string;
}

/**
 * Records of a trajectory: the issue, then each step's thought and action and its observation. The
 * system prompt and the demonstrations are the harness's, the same in every run (a demonstration
 * is another task's trajectory): their "you must" sentences would be taken for this session's
 * constraints, so they are counted in `skipped`, as is the instructions template around the issue.
 */
export function importSweAgent(trajectory: SweTrajectory, collector: RecordCollector, skipped: Record<string, number>): SweResult {
  const [system, ...rest] = trajectory.history;
  if (system?.role === 'system') countSkipped(skipped, 'system prompt');
  for (const message of rest) if (message.role === 'user' && message.isDemo) countSkipped(skipped, 'demonstration');
  const issue = rest.find((message) => message.role === 'user' && !message.isDemo);
  const result: SweResult = {};
  if (issue !== undefined) {
    result.lastUserRequest = sweIssueText(issue.text);
    collector.message({ id: 'issue' }, 'user', result.lastUserRequest);
  }
  trajectory.steps.forEach((step, index) => {
    const number = String(index + 1).padStart(2, '0');
    const action = step.action.trim();
    collector.message({ id: `step-${number}-thought` }, 'assistant', `${step.thought.trim()}\n\n\`\`\`\n${action}\n\`\`\``);
    const command = action.split('\n')[0] ?? '';
    collector.toolRun({ id: `step-${number}-output` }, { command: command === '' ? undefined : command, tool: command === '' ? 'swe-agent' : undefined, output: step.observation, isError: PYTHON_TRACEBACK.test(step.observation) });
  });
  if (trajectory.submission !== undefined) {
    submissionDiffs(trajectory.submission).forEach((file, index) => collector.diff({ id: `submission-${index + 1}` }, file.path, file.diff));
  }
  return result;
}

/** The submitted patch split per file (`diff --git` sections), each with the path it changes. */
function submissionDiffs(patch: string): Array<{ path: string; diff: string }> {
  const sections = patch.replace(/\r\n/g, '\n').split(/^(?=diff --git )/m);
  const files: Array<{ path: string; diff: string }> = [];
  for (const section of sections) {
    const path = /^\+\+\+ b\/(.+)$/m.exec(section)?.[1] ?? /^--- a\/(.+)$/m.exec(section)?.[1];
    if (path !== undefined && section.trim() !== '') files.push({ path: path.trim(), diff: section });
  }
  return files;
}
