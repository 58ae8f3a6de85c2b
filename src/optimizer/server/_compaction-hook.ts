// `mcpctx optimizer hook`: Claude Code's compaction hook. After a compaction Claude Code starts the
// session again from a summary; this hook reads the transcript it names and hands the model, as
// additional context, what the optimizer keeps of the session for the task.
//
// The contract, from Claude Code's hooks reference (https://code.claude.com/docs/en/hooks, read
// 2026-12-05 through the thevibeworks/claude-code-docs mirror of 2026-08-22):
// - stdin is one JSON object: session_id, transcript_path, cwd, hook_event_name, and per event
//   `source` (SessionStart: startup, resume, clear, compact, fork) or `trigger` and
//   `custom_instructions` (PreCompact: manual, auto).
// - SessionStart adds `{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":…}}`
//   (or plain stdout) to the model's context; exit 2 only shows stderr to the user.
// - PreCompact cannot add context: its only output is `decision: "block"` or exit 2, which BLOCK
//   the compaction, and its stdout goes to the debug log. So this hook answers it with nothing.
// - Any exit code but 2 does not block; with empty stdout it is shown as a "hook error" notice
//   carrying stderr's first line. Exit 0's stderr goes to the debug log only.
// - additionalContext over 10,000 characters is saved to a file and the model gets a preview and
//   the path, so a large budget is read by the model in two steps.
import { open } from 'node:fs/promises';
import { McpctxError } from '../../errors/index.js';
import { MAX_JSON_DEPTH, isPlainObject, nestsDeeperThan, ownValue } from '../../json/index.js';
import { countTokens } from '../../tokens/index.js';
import { ContextOptimizer, DEFAULT_TOKEN_BUDGET } from '../_optimizer.js';
import type { SessionRecords } from '../_types.js';
import { importTranscript as importClaudeCodeTranscript } from '../transcripts/index.js';

/** Most bytes of hook input read from stdin: Claude Code's SessionStart and PreCompact inputs are a few hundred. */
export const MAX_COMPACTION_HOOK_INPUT_BYTES = 1024 * 1024;
/** Most bytes of a transcript read; a longer one is refused rather than read into memory. */
export const MAX_TRANSCRIPT_BYTES = 64 * 1024 * 1024;
/** Claude Code's cap on a hook's additionalContext before it goes to a file instead. */
export const CLAUDE_CODE_CONTEXT_CHARS = 10_000;

/** What the hook needs of a transcript parser (`importTranscript` of the transcripts folder). */
export type TranscriptImporter = (text: string, options: { format: 'claude-code' }) => { records: SessionRecords; lastUserRequest?: string };

export interface CompactionHookOptions {
  /** Claude Code's hook input. */
  readonly stdin: AsyncIterable<Buffer | string>;
  /** Reads the transcript; refuses (throws) past `maxBytes`. */
  readonly readFile: (path: string, maxBytes: number) => Promise<string>;
  /** The transcript parser; default the transcripts folder's `importTranscript` (tests pass a fixed one). */
  readonly importTranscript?: TranscriptImporter;
  /** Tokens the additional context may use, heading included (default 8,000). */
  readonly budget?: number;
  /** What the context is for; default the transcript's last user request. */
  readonly task?: string;
}

/**
 * What to print and the exit code. `exitCode` is 0 or 3, never 2: exit 2 would block a
 * compaction (PreCompact) and a broken hook must never stand in the user's way.
 */
export interface CompactionHookOutcome {
  readonly stdout?: string;
  /** One line for stderr: why nothing was added, or a warning. */
  readonly stderr?: string;
  readonly exitCode: 0 | 3;
  /** What was built, for reports and tests. */
  readonly built?: { readonly task: string; readonly budget: number; readonly tokens: number; readonly chars: number };
}

interface HookInput {
  readonly event: string;
  readonly source?: string;
  readonly transcriptPath?: string;
}

/** Runs the hook once; every failure becomes an outcome with a reason, never a throw. */
export async function runCompactionHook(options: CompactionHookOptions): Promise<CompactionHookOutcome> {
  try {
    return await compactionHook(options);
  } catch (error) {
    return failed((error as Error).message);
  }
}

async function compactionHook(options: CompactionHookOptions): Promise<CompactionHookOutcome> {
  const budget = options.budget ?? DEFAULT_TOKEN_BUDGET;
  if (!Number.isSafeInteger(budget) || budget < 1) return failed(`--budget must be a positive integer, got ${String(budget)}`);
  const read = await readBounded(options.stdin, MAX_COMPACTION_HOOK_INPUT_BYTES);
  if (!read.ok) return failed(read.reason);
  const input = parseInput(read.text);
  if (typeof input === 'string') return failed(input);
  if (input.event === 'PreCompact') {
    return { exitCode: 0, stderr: 'PreCompact cannot add context (Claude Code reads only a block decision from it); the context is added at SessionStart with source "compact".' };
  }
  if (input.event !== 'SessionStart') return failed(`the hook input is a ${input.event} event; this hook answers SessionStart (source "compact") and PreCompact`);
  if (input.source !== 'compact') return { exitCode: 0, stderr: `SessionStart with source "${input.source ?? '(none)'}": nothing to add (this hook adds context after a compaction)` };
  if (input.transcriptPath === undefined) return failed('the hook input has no transcript_path');

  let text: string;
  try {
    text = await options.readFile(input.transcriptPath, MAX_TRANSCRIPT_BYTES);
  } catch (error) {
    return failed(`cannot read the transcript ${input.transcriptPath}: ${(error as Error).message}`);
  }
  const imported = (options.importTranscript ?? importClaudeCodeTranscript)(text, { format: 'claude-code' });
  const task = options.task ?? imported.lastUserRequest;
  if (task === undefined || task.trim() === '') return failed(`the transcript ${input.transcriptPath} has no user request to build the context for; give one with --task`);

  const heading = `Context kept from before the compaction by mcpctx (the session's own records, each tagged with its source), for the task: ${oneLine(task)}\n\n`;
  const headingTokens = countTokens(heading);
  if (headingTokens >= budget) return failed(`--budget ${budget} does not leave room for the context after its ${headingTokens}-token heading; raise --budget`);
  // The hook's budget is a promise: when the mandatory facts alone are over it, the best-ranked that fit are kept and the rest named on stderr.
  const optimizer = new ContextOptimizer({ counter: 'o200k', mandatoryOverBudget: 'best-first' });
  const result = optimizer.buildContext({ ...imported.records, task, tokenBudget: budget - headingTokens });
  const context = `${heading}${result.context}`;
  const tokens = countTokens(context);
  if (tokens > budget) return failed(`the context with its heading is ${tokens} tokens, over --budget ${budget}; raise --budget`);
  const notes: string[] = [];
  const conflict = result.report.selection.conflict;
  if (conflict?.mandatoryOmitted !== undefined) {
    notes.push(`${conflict.mandatoryOmitted} of the session's mandatory fragments did not fit --budget ${budget} (they need ${conflict.mandatoryTokens} tokens in all); the best-ranked were kept; raise --budget to keep them all`);
  }
  if (context.length > CLAUDE_CODE_CONTEXT_CHARS) {
    notes.push(`the context is ${context.length} characters; Claude Code hands the model a preview and a file path past ${CLAUDE_CODE_CONTEXT_CHARS} (a --budget near 2,500 keeps it inline)`);
  }
  const output = { hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: context } };
  return {
    exitCode: 0,
    stdout: `${JSON.stringify(output)}\n`,
    built: { task, budget, tokens, chars: context.length },
    ...(notes.length > 0 ? { stderr: notes.join('; ') } : {}),
  };
}

function failed(reason: string): CompactionHookOutcome {
  return { exitCode: 3, stderr: `nothing was added to the context: ${reason}` };
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

async function readBounded(stream: AsyncIterable<Buffer | string>, maxBytes: number): Promise<{ ok: true; text: string } | { ok: false; reason: string }> {
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of stream) {
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      total += buffer.length;
      if (total > maxBytes) return { ok: false, reason: `the hook input is over ${maxBytes.toLocaleString('en-US')} bytes; not read` };
      chunks.push(buffer);
    }
  } catch (error) {
    return { ok: false, reason: `cannot read the hook input: ${(error as Error).message}` };
  }
  return { ok: true, text: Buffer.concat(chunks).toString('utf8') };
}

/** The fields of Claude Code's input this hook reads (own properties only), or why it cannot. */
function parseInput(text: string): HookInput | string {
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (error) {
    return `the hook input is not JSON (${(error as Error).name})`;
  }
  if (nestsDeeperThan(value, MAX_JSON_DEPTH)) return `the hook input nests deeper than ${MAX_JSON_DEPTH} levels`;
  if (!isPlainObject(value)) return 'the hook input is not a JSON object';
  const event = ownValue(value, 'hook_event_name');
  if (typeof event !== 'string' || event === '') return 'the hook input has no hook_event_name';
  const source = ownValue(value, 'source');
  const transcriptPath = ownValue(value, 'transcript_path');
  return {
    event,
    ...(typeof source === 'string' ? { source } : {}),
    ...(typeof transcriptPath === 'string' && transcriptPath !== '' ? { transcriptPath } : {}),
  };
}

/** Reads a file as UTF-8, refusing one over `maxBytes` before reading it. */
export async function readTranscriptFile(path: string, maxBytes: number): Promise<string> {
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    if (size > maxBytes) throw new McpctxError('IO', `${size.toLocaleString('en-US')} bytes, over the ${maxBytes.toLocaleString('en-US')}-byte limit`, { file: path });
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}
