import { createHash } from 'node:crypto';
import { sha256Hex } from '../tokens/index.js';
import {
  RECORD_ARRAYS,
  type DecisionRecord,
  type DiffRecord,
  type ErrorRecord,
  type FileRecord,
  type MessageRecord,
  type NormalizedRecord,
  type RecordKind,
  type SessionRecords,
  type TestResultRecord,
  type ToolOutputRecord,
} from './_types.js';
import { normalizePath } from './_paths.js';
import { parseSessionRecords, type ValidationOptions } from './_validate.js';

export interface NormalizedSession {
  records: NormalizedRecord[];
  collapsedLines: number;
  replacedInvalidUtf16: number;
}

const ID_PREFIX: Record<RecordKind, string> = {
  message: 'msg',
  toolOutput: 'tool',
  error: 'err',
  file: 'file',
  diff: 'diff',
  testResult: 'test',
  decision: 'dec',
};

/** A run of identical log lines longer than this is collapsed to the first line and a count. */
const COLLAPSE_AFTER = 3;
const MAX_LABEL_CHARS = 160;

interface TextFix {
  text: string;
  replaced: number;
}

// A high surrogate not followed by a low one, or a low one not preceded by a high one.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
/** Any surrogate code unit: a text without one has no lone one either (almost every text). */
const ANY_SURROGATE = /[\uD800-\uDFFF]/;

/** Lone surrogates become U+FFFD (counted) so every later stage and the tokenizer see valid text. */
function wellFormed(text: string): TextFix {
  if (!ANY_SURROGATE.test(text)) return { text, replaced: 0 };
  let replaced = 0;
  const fixed = text.replace(LONE_SURROGATE, () => {
    replaced++;
    return '\uFFFD';
  });
  return { text: replaced === 0 ? text : fixed, replaced };
}

/**
 * The record with every string field well-formed (`wellFormed`), and how many code units that
 * replaced. The record itself when nothing needed replacing, which is almost always: it is only
 * read from here on, so the copy of every record the old code made bought nothing.
 */
function wellFormedFields(given: Record<string, unknown>): { record: Record<string, unknown>; replaced: number } {
  let copy: Record<string, unknown> | undefined;
  let replaced = 0;
  const fields = Object.keys(given);
  for (let position = 0; position < fields.length; position++) {
    const value = given[fields[position]!];
    if (typeof value !== 'string' || !ANY_SURROGATE.test(value)) continue;
    const fixed = wellFormed(value);
    if (fixed.replaced === 0) continue;
    replaced += fixed.replaced;
    if (copy === undefined) {
      // Copied in the given field order, like the copy this replaces.
      copy = {};
      for (const field of fields) copy[field] = given[field];
    }
    copy[fields[position]!] = fixed.text;
  }
  return { record: copy ?? given, replaced };
}

function normalizeLineEndings(text: string): string {
  return text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text;
}

/** Whether lines [a, aEnd) and [b, bEnd) of `text` are equal, compared in place. */
function sameLine(text: string, a: number, aEnd: number, b: number, bEnd: number): boolean {
  if (aEnd - a !== bEnd - b) return false;
  for (let i = 0; i < aEnd - a; i++) if (text.charCodeAt(a + i) !== text.charCodeAt(b + i)) return false;
  return true;
}

/**
 * Whether some non-blank line repeats more than COLLAPSE_AFTER times in a row: one pass over the
 * text that builds no strings, so the common case (nothing to collapse) allocates nothing.
 */
function hasCollapsibleRun(text: string): boolean {
  let previousStart = -1;
  let previousEnd = -1;
  let run = 0;
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    if (previousStart >= 0 && sameLine(text, previousStart, previousEnd, start, end)) {
      run++;
      if (run > COLLAPSE_AFTER && text.slice(start, end).trim() !== '') return true;
    } else run = 1;
    previousStart = start;
    previousEnd = end;
    start = end + 1;
  }
  return false;
}

/** Collapses runs of identical consecutive lines (a retry loop printing the same line 10,000 times). */
export function collapseRepeatedLines(text: string): { text: string; collapsed: number } {
  if (!hasCollapsibleRun(text)) return { text, collapsed: 0 };
  const lines = text.split('\n');
  if (lines.length <= COLLAPSE_AFTER) return { text, collapsed: 0 };
  const out: string[] = [];
  let collapsed = 0;
  let i = 0;
  while (i < lines.length) {
    const line = lines[i] as string;
    let end = i + 1;
    while (end < lines.length && lines[end] === line) end++;
    const run = end - i;
    if (run > COLLAPSE_AFTER && line.trim() !== '') {
      out.push(line, `[previous line repeated ${run - 1} more times]`);
      collapsed += run - 1;
    } else {
      for (let k = i; k < end; k++) out.push(line);
    }
    i = end;
  }
  return collapsed === 0 ? { text, collapsed: 0 } : { text: out.join('\n'), collapsed };
}

/**
 * sha256 hex of the parts joined by U+0000: the same digest as hashing the joined string (UTF-8 of
 * a concatenation is the concatenation of the UTF-8s, and every part is well-formed), without
 * building and flattening a copy of every record's text. The parts are encoded into one buffer kept
 * between records and hashed in one call: a `Hash` object per record cost more than the hashing.
 */
function sha256OfParts(...parts: string[]): string {
  let maxBytes = parts.length;
  for (const part of parts) maxBytes += part.length * 3; // a UTF-16 code unit is at most 3 UTF-8 bytes
  if (maxBytes > MAX_HASH_SCRATCH_BYTES) return sha256OfPartsStreamed(parts);
  if (hashScratch.length < maxBytes) hashScratch = Buffer.allocUnsafe(Math.min(MAX_HASH_SCRATCH_BYTES, Math.max(maxBytes, hashScratch.length * 2)));
  let length = 0;
  for (let index = 0; index < parts.length; index++) {
    if (index > 0) hashScratch[length++] = 0;
    length += hashScratch.write(parts[index]!, length);
  }
  return sha256Hex(hashScratch.subarray(0, length));
}

/** Texts whose UTF-8 could pass this are hashed part by part instead of growing the scratch buffer. */
const MAX_HASH_SCRATCH_BYTES = 4 * 1024 * 1024;
let hashScratch = Buffer.allocUnsafe(64 * 1024);

function sha256OfPartsStreamed(parts: readonly string[]): string {
  const hash = createHash('sha256');
  parts.forEach((part, index) => {
    if (index > 0) hash.update('\u0000');
    hash.update(part);
  });
  return hash.digest('hex');
}

/** One line, no tag syntax: labels go inside `[source: ... | ... | label]`. */
function tagSafe(text: string): string {
  const line = text.replace(/[\r\n\t]+/g, ' ').replace(/\|/g, '/').trim();
  return line.length > MAX_LABEL_CHARS ? `${line.slice(0, MAX_LABEL_CHARS - 1)}…` : line;
}

interface KindView {
  /** The body as given, before normalization (what raw input costs). */
  body: string;
  label: string;
  /** Identifying fields that make two records with the same body different (command, status...). */
  identity: string;
  collapse: boolean;
  fields: Partial<NormalizedRecord>;
}

function viewOf(kind: RecordKind, record: Record<string, unknown>): KindView {
  switch (kind) {
    case 'message': {
      const r = record as unknown as MessageRecord;
      return { body: r.text, label: r.role, identity: r.role, collapse: true, fields: { role: r.role } };
    }
    case 'toolOutput': {
      const r = record as unknown as ToolOutputRecord;
      const label = r.command ?? r.tool ?? '';
      const runKey = r.command === undefined ? undefined : `command:${r.tool ?? ''} ${r.command.trim().replace(/\s+/g, ' ')}`;
      return {
        body: r.output,
        label,
        identity: `${r.tool ?? ''}\u0000${r.command ?? ''}\u0000${r.exitCode ?? ''}`,
        collapse: true,
        fields: { tool: r.tool, command: r.command, exitCode: r.exitCode, runKey },
      };
    }
    case 'error': {
      const r = record as unknown as ErrorRecord;
      const body = r.stack === undefined ? r.message : `${r.message}\n${r.stack}`;
      return { body, label: r.message.split('\n', 1)[0] ?? '', identity: '', collapse: true, fields: {} };
    }
    case 'file': {
      const r = record as unknown as FileRecord;
      // Snapshots of one file are runs of it: the newest is the file, older ones its history. The
      // label keeps the caller's spelling; every comparison reads the normalized `path`.
      const path = normalizePath(r.path);
      return { body: r.content, label: r.path, identity: path, collapse: false, fields: { path, runKey: `file:${path}` } };
    }
    case 'diff': {
      const r = record as unknown as DiffRecord;
      const path = normalizePath(r.path);
      return { body: r.diff, label: r.path, identity: path, collapse: false, fields: { path } };
    }
    case 'testResult': {
      const r = record as unknown as TestResultRecord;
      return {
        body: r.output ?? '',
        label: r.name,
        identity: `${r.name}\u0000${r.status}`,
        collapse: true,
        fields: { testName: r.name, testStatus: r.status, runKey: `test:${r.name}` },
      };
    }
    case 'decision': {
      const r = record as unknown as DecisionRecord;
      return { body: r.text, label: `decision (${r.status})`, identity: r.status, collapse: true, fields: { decisionStatus: r.status } };
    }
  }
}

/** The text of each record as given: what the raw input costs before anything is cut. */
export function rawBodies(records: SessionRecords): string[] {
  const bodies: string[] = [];
  for (const { array, kind } of RECORD_ARRAYS) {
    for (const record of records[array] ?? []) bodies.push(viewOf(kind, record as unknown as Record<string, unknown>).body);
  }
  return bodies;
}

/**
 * What a derived id hashes: the content (kind, identifying fields, text) and every other field the
 * caller gave that the later stages read (timestamp, priority; the session is part of the content
 * hash), each only when given so that a
 * record without them keeps the id it always had. Two records with the same hash are then equal in
 * everything but their input position: interchangeable, so numbering them `~2`, `~3` in input order
 * gives the same tags to the same contents whatever the order (shuffling them only swaps two equal
 * things). Two runs with the same output at different times, or the same text given different
 * priorities, get different ids from what they are, never from where they sit.
 */
function derivedIdHash(contentHash: string, record: { timestamp?: string; priority?: number; session?: string }): string {
  if (record.timestamp === undefined && record.priority === undefined) return contentHash;
  const parts = [contentHash, record.timestamp ?? ''];
  if (record.priority !== undefined) parts.push(`priority ${record.priority}`);
  return sha256Hex(parts.join('\u0000'));
}

/** Stage 1 on records that are already validated (`parseSessionRecords`). */
export function normalizeValidated(records: SessionRecords): NormalizedSession {
  const out: NormalizedRecord[] = [];
  const derivedIds = new Map<string, number>();
  // A derived id must never equal one the caller chose: every source tag resolves to one record.
  const callerIds = new Set<string>();
  for (const { array } of RECORD_ARRAYS) for (const record of records[array] ?? []) if (record.id !== undefined) callerIds.add(record.id);
  let collapsedLines = 0;
  let replacedInvalidUtf16 = 0;
  let order = 0;
  for (const { array, kind } of RECORD_ARRAYS) {
    const list = records[array] ?? [];
    for (let index = 0; index < list.length; index++) {
      const fixed = wellFormedFields(list[index] as unknown as Record<string, unknown>);
      replacedInvalidUtf16 += fixed.replaced;
      const record = fixed.record as Record<string, unknown> & { id?: string; timestamp?: string; priority?: number; session?: string };
      const view = viewOf(kind, record);
      let text = normalizeLineEndings(view.body);
      let collapsed = 0;
      if (view.collapse) ({ text, collapsed } = collapseRepeatedLines(text));
      collapsedLines += collapsed;
      // Records of different sessions are never duplicates or runs of each other: what one session
      // said must stay in that session for scoping, even when another said the same.
      const identity = record.session === undefined ? view.identity : `${view.identity}\u0000session ${record.session}`;
      const contentHash = sha256OfParts(kind, identity, text);
      let id = record.id;
      if (id === undefined) {
        const base = `${ID_PREFIX[kind]}-${derivedIdHash(contentHash, record).slice(0, 12)}`;
        let seen = derivedIds.get(base) ?? 0;
        do {
          seen++;
          id = seen === 1 ? base : `${base}~${seen}`;
        } while (callerIds.has(id));
        derivedIds.set(base, seen);
      }
      // Built one property at a time (a literal with spreads cost more than the rest of this loop), in
      // the order the output has always shown: the kind's given fields, then the common ones.
      const normalized: Record<string, unknown> = {};
      assignDefined(normalized, view.fields as Record<string, unknown>);
      if (record.session !== undefined && view.fields.runKey !== undefined) normalized.runKey = `${view.fields.runKey}\u0000session ${record.session}`;
      normalized.id = id;
      normalized.kind = kind;
      normalized.origin = { array, index };
      normalized.order = order++;
      if (record.timestamp !== undefined) {
        normalized.timestamp = record.timestamp;
        normalized.time = Date.parse(record.timestamp);
      }
      normalized.priority = record.priority ?? 0.5;
      if (record.session !== undefined) normalized.session = record.session;
      normalized.label = tagSafe(view.label);
      normalized.text = text;
      normalized.collapsedLines = collapsed;
      normalized.contentHash = contentHash;
      normalized.history = [];
      out.push(normalized as unknown as NormalizedRecord);
    }
  }
  return { records: out, collapsedLines, replacedInvalidUtf16 };
}

/** Copies the fields that are not undefined, in their order. */
function assignDefined(target: Record<string, unknown>, fields: Record<string, unknown>): void {
  for (const key of Object.keys(fields)) if (fields[key] !== undefined) target[key] = fields[key];
}

/** Stage 1: validates (throwing INVALID_RECORDS on the first bad record), then normalizes. */
export function normalizeRecords(records: SessionRecords, options: ValidationOptions = {}): NormalizedSession {
  return normalizeValidated(parseSessionRecords(records, options));
}

/** `toolOutputs[3]`: where a record came from, for people. */
export function originText(record: Pick<NormalizedRecord, 'origin'>): string {
  return `${record.origin.array}[${record.origin.index}]`;
}
