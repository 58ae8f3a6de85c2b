// Agents' session transcripts turned into the optimizer's records. Pure: it parses text it is
// given and reads no files. Formats: Claude Code session JSONL, Codex CLI rollout JSONL and
// SWE-agent `.traj` JSON (see each `_<format>.ts` for what is read from it).

import { McpctxError } from '../../errors/index.js';
import { isPlainObject, ownValue } from '../../json/index.js';
import type { SessionRecords } from '../_types.js';
import { MAX_TASK_CHARS } from '../_validate.js';
import { importClaudeCode } from './_claude-code.js';
import { importCodex, LEGACY_ITEM_TYPES } from './_codex.js';
import { cutText, RecordCollector } from './_collect.js';
import { parseBoundedJson, readJsonLines, type LineProblems } from './_lines.js';
import { importSweAgent, parseSweTrajectory } from './_swe-agent.js';

export { parseSweTrajectory, sweIssueText, type SweHistoryMessage, type SweStep, type SweTrajectory } from './_swe-agent.js';

export type TranscriptFormat = 'claude-code' | 'codex' | 'swe-agent';
export const TRANSCRIPT_FORMATS: readonly TranscriptFormat[] = ['claude-code', 'codex', 'swe-agent'];

export interface TranscriptImport {
  format: TranscriptFormat;
  records: SessionRecords;
  /** The last user request in the transcript (the default task of the compaction hook), if any; cut to the task cap of 100,000 characters. */
  lastUserRequest?: string;
  /** Session id when the transcript names one. */
  session?: string;
  /** Event/line types seen but not turned into records, with counts (unknown ones are counted and skipped, never fatal). */
  skipped: Record<string, number>;
  /** A last line cut short (the agent still writing, or a crash): reported, not fatal. */
  truncatedLastLine?: { line: number; bytes: number };
  /** Lines that are not JSON elsewhere than the end: counted, with the first few line numbers. */
  badLines: { count: number; first: number[] };
}

export interface ImportTranscriptOptions {
  /** The transcript's format; detected when not given. */
  format?: TranscriptFormat;
  /** Most records made; the rest are counted in `skipped` as "records over maxRecords". Default 1,000,000. */
  maxRecords?: number;
  /** Largest text field made, in UTF-16 code units (longer texts are cut, with a marker): the optimizer's `maxRecordChars`. Default 4,194,304. */
  maxRecordChars?: number;
}

const DEFAULT_MAX_RECORDS = 1_000_000;
/** Lines looked at to tell a JSON Lines format: the first may be a snapshot or queue event of either. */
const DETECTION_LINES = 20;
const CODEX_TYPES = new Set(['session_meta', 'response_item', 'event_msg', 'turn_context', 'compacted']);
const CLAUDE_CODE_TYPES = new Set(['user', 'assistant', 'summary', 'system', 'file-history-snapshot', 'queue-operation']);

/** The format of a transcript's text, from its first lines (or, for SWE-agent, its whole JSON); undefined when none fits. */
export function detectTranscriptFormat(text: string): TranscriptFormat | undefined {
  const problems: LineProblems = { skipped: {}, badLines: { count: 0, first: [] } };
  let start = 0;
  for (let index = 0; index < DETECTION_LINES && start < text.length; index += 1) {
    const newline = text.indexOf('\n', start);
    const line = text.slice(start, newline === -1 ? text.length : newline);
    start = newline === -1 ? text.length : newline + 1;
    if (line.trim() === '' || line.length > 1024 * 1024) continue;
    const [parsed] = readJsonLines(line, problems);
    if (parsed === undefined) continue;
    const type = ownValue(parsed.value, 'type');
    if (typeof type === 'string' && CODEX_TYPES.has(type) && ownValue(parsed.value, 'payload') !== undefined) return 'codex';
    if (typeof type === 'string' && CLAUDE_CODE_TYPES.has(type)) return 'claude-code';
    // A legacy Codex rollout: bare response items (`{"type":"message","role":…}`, `{"type":"function_call","call_id":…}`).
    if (typeof type === 'string' && LEGACY_ITEM_TYPES.has(type) && (ownValue(parsed.value, 'role') !== undefined || ownValue(parsed.value, 'call_id') !== undefined)) return 'codex';
    if (ownValue(parsed.value, 'sessionId') !== undefined && ownValue(parsed.value, 'uuid') !== undefined) return 'claude-code';
    if (Array.isArray(ownValue(parsed.value, 'trajectory'))) return 'swe-agent';
  }
  // A `.traj` is one (usually pretty-printed) JSON document.
  if (text.trimStart().startsWith('{')) {
    const parsed = parseBoundedJson(text.trim());
    if ('value' in parsed && isPlainObject(parsed.value) && Array.isArray(ownValue(parsed.value, 'trajectory'))) return 'swe-agent';
  }
  return undefined;
}

function positiveInteger(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) throw new McpctxError('INVALID_ARGUMENT', `${name} must be a positive integer, got ${String(value)}`);
  return value;
}

/**
 * Turns a transcript's text into the optimizer's records, in the transcript's order, each with
 * the transcript's own id and time. Unknown event types are counted in `skipped`; a last line
 * cut short is reported in `truncatedLastLine`. Throws INVALID_ARGUMENT when the format is not
 * given and cannot be detected, or a SWE-agent text is not a trajectory.
 */
export function importTranscript(text: string, options: ImportTranscriptOptions = {}): TranscriptImport {
  const maxRecords = positiveInteger('maxRecords', options.maxRecords, DEFAULT_MAX_RECORDS);
  const maxRecordChars = options.maxRecordChars === undefined ? undefined : positiveInteger('maxRecordChars', options.maxRecordChars, 1);
  const format = options.format ?? detectTranscriptFormat(text);
  if (format === undefined) {
    throw new McpctxError('INVALID_ARGUMENT', `the transcript's format is not one of ${TRANSCRIPT_FORMATS.join(', ')} (its first lines name none); give the format`);
  }
  if (!TRANSCRIPT_FORMATS.includes(format)) throw new McpctxError('INVALID_ARGUMENT', `format must be one of ${TRANSCRIPT_FORMATS.join(', ')}, got ${JSON.stringify(format)}`);
  const problems: LineProblems = { skipped: {}, badLines: { count: 0, first: [] } };
  const collector = new RecordCollector(problems.skipped, maxRecords, maxRecordChars);
  let found: { lastUserRequest?: string; session?: string };
  if (format === 'swe-agent') found = importSweAgent(parseSweTrajectory(text), collector, problems.skipped);
  else {
    const lines = readJsonLines(text, problems);
    found = format === 'claude-code' ? importClaudeCode(lines, collector, problems.skipped) : importCodex(lines, collector, problems.skipped);
  }
  const result: TranscriptImport = { format, records: collector.result(), skipped: problems.skipped, badLines: problems.badLines };
  // The request is the default task, which has a cap of its own (a pasted log can be longer).
  if (found.lastUserRequest !== undefined) result.lastUserRequest = cutText(found.lastUserRequest, MAX_TASK_CHARS);
  if (found.session !== undefined) result.session = found.session;
  if (problems.truncatedLastLine !== undefined) result.truncatedLastLine = problems.truncatedLastLine;
  return result;
}
