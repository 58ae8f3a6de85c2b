// Gathers the records a transcript yields in the input format, so that whatever a transcript
// holds, the result passes `parseSessionRecords`: ids made legal and unique, times ISO 8601,
// texts cut to the record cap, names to the tag cap.

import { DEFAULT_MAX_RECORD_CHARS, MAX_ID_CHARS, MAX_SESSION_CHARS } from '../_validate.js';
import type { RecordCommon, SessionRecords, TestStatus } from '../_types.js';
import { countSkipped } from './_lines.js';
import { errorHeadline, failureLocation, frameLines, isTestCommand, looksLikeFailure, testRunStatus } from './_shell.js';

/** Commands, paths and tool names go into one-line source tags (the validator's name cap). */
const MAX_NAME_CHARS = 4096;
const ISO_8601 = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;
// eslint-disable-next-line no-control-regex -- control characters are what ids may not hold
const ID_FORBIDDEN = /[|[\]\u0000-\u001f\u007f]/g;

/** Where a record came from in the transcript: its own id and time. */
export interface RecordSource {
  id?: string;
  timestamp?: unknown;
}

export interface ToolRun {
  tool?: string;
  command?: string;
  output: string;
  exitCode?: number;
  /** The transcript marked the result as an error (`is_error`). */
  isError?: boolean;
}

type ArrayName = keyof SessionRecords;

export class RecordCollector {
  readonly records: Required<SessionRecords> = { messages: [], toolOutputs: [], errors: [], files: [], diffs: [], testResults: [], decisions: [] };
  session?: string;
  private readonly ids = new Set<string>();
  private count = 0;

  constructor(
    private readonly skipped: Record<string, number>,
    private readonly maxRecords: number,
    private readonly maxChars: number = DEFAULT_MAX_RECORD_CHARS,
  ) {}

  message(source: RecordSource, role: 'user' | 'assistant' | 'system' | 'tool', text: string): void {
    if (text.trim() === '') return;
    this.push('messages', source, { role, text: this.text(text) });
  }

  file(source: RecordSource, path: string, content: string): void {
    this.push('files', source, { path: this.name(path), content: this.text(content) });
  }

  diff(source: RecordSource, path: string, diff: string): void {
    if (diff.trim() === '') return;
    this.push('diffs', source, { path: this.name(path), diff: this.text(diff) });
  }

  error(source: RecordSource, message: string, stack?: string): void {
    const record: Record<string, unknown> = { message: this.text(message) };
    if (stack !== undefined && stack.trim() !== '' && stack !== message) record.stack = this.text(stack);
    this.push('errors', source, record);
  }

  /**
   * A tool call and its result: the tool output, plus a test result when the command ran tests
   * and its status is known, plus an error when the result was marked as one or a non-zero exit
   * printed a traceback or a location (its headline and location, its frames as the stack).
   */
  toolRun(source: RecordSource, run: ToolRun): void {
    const record: Record<string, unknown> = {};
    if (run.tool !== undefined && run.tool.trim() !== '') record.tool = this.name(run.tool);
    if (run.command !== undefined && run.command.trim() !== '') record.command = this.name(run.command);
    if (record.tool === undefined && record.command === undefined) record.tool = 'tool';
    record.output = this.text(run.output);
    if (run.exitCode !== undefined && Number.isSafeInteger(run.exitCode)) record.exitCode = run.exitCode;
    this.push('toolOutputs', source, record);
    const base = source.id;
    if (run.command !== undefined && isTestCommand(run.command)) {
      const status: TestStatus | undefined = testRunStatus(run.exitCode ?? (run.isError === true ? 1 : undefined), run.output);
      if (status !== undefined) {
        this.push('testResults', { ...source, id: base === undefined ? undefined : `${base}:test` }, { name: this.name(run.command), status, output: this.text(run.output) });
      }
    }
    const failed = run.isError === true || (run.exitCode !== undefined && run.exitCode !== 0 && looksLikeFailure(run.output));
    if (failed && run.output.trim() !== '') {
      const location = failureLocation(run.output);
      const headline = errorHeadline(run.output);
      const message = location !== undefined && !headline.includes(location) ? `${headline} (at ${location})` : headline;
      this.error({ ...source, id: base === undefined ? undefined : `${base}:error` }, message, frameLines(run.output));
    }
  }

  private push(array: ArrayName, source: RecordSource, fields: Record<string, unknown>): void {
    if (this.count >= this.maxRecords) {
      countSkipped(this.skipped, 'records over maxRecords');
      return;
    }
    this.count += 1;
    const record: Record<string, unknown> & RecordCommon = {};
    const id = this.uniqueId(source.id);
    if (id !== undefined) record.id = id;
    if (typeof source.timestamp === 'string' && ISO_8601.test(source.timestamp) && !Number.isNaN(Date.parse(source.timestamp))) record.timestamp = source.timestamp;
    if (this.session !== undefined) record.session = this.session;
    (this.records[array] as unknown[]).push({ ...record, ...fields });
  }

  /** The transcript's id made legal in a source tag, suffixed `~2`, `~3` when it repeats. */
  private uniqueId(raw: string | undefined): string | undefined {
    if (raw === undefined) return undefined;
    const cleaned = raw.replace(ID_FORBIDDEN, '_').trim().slice(0, MAX_ID_CHARS - 8);
    if (cleaned === '') return undefined;
    let id = cleaned;
    for (let n = 2; this.ids.has(id); n += 1) id = `${cleaned}~${n}`;
    this.ids.add(id);
    return id;
  }

  private text(value: string): string {
    return cutText(value, this.maxChars);
  }

  private name(value: string): string {
    const firstLine = value.trim();
    return firstLine.length > MAX_NAME_CHARS ? cutText(firstLine, MAX_NAME_CHARS) : firstLine;
  }

  /** The records, without empty arrays. */
  result(): SessionRecords {
    const out: SessionRecords = {};
    for (const [array, list] of Object.entries(this.records) as Array<[ArrayName, unknown[]]>) {
      if (list.length > 0) (out as Record<string, unknown>)[array] = list;
    }
    return out;
  }
}

/** A session id the validator accepts, or undefined. */
export function sessionId(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' && value.length <= MAX_SESSION_CHARS ? value : undefined;
}

/** `text` within `max` characters: its head, a marker saying how much was cut, and its last lines. */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  const marker = `\n[… ${(text.length - max).toLocaleString('en-US')}+ characters cut by mcpctx …]\n`;
  const room = Math.max(0, max - marker.length);
  const head = Math.ceil(room * 0.75);
  const tail = room - head;
  return `${text.slice(0, head)}${marker}${tail > 0 ? text.slice(text.length - tail) : ''}`.slice(0, max);
}
