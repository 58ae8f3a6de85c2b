#!/usr/bin/env node
// @ts-check
// An MCP server over stdio that serves a frozen snapshot of flat records in one of two shapes:
//   MODE=baseline   list_records (everything, no paging) and exact_record
//   MODE=optimized  find_records, count_by_field and exact_record (pages of 5, bound cursors,
//                   a 60 s result cache, compact text-only JSON)
// Environment: MODE (default optimized), SNAPSHOT_PATH, FIELDS_PATH (default: the files in data/),
// CURSOR_KEY (optional, 16+ characters; default a random key per process).
// See README.md next to this file.
import { fileURLToPath } from 'node:url';
import { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import * as z from 'zod';
import {
  CursorCodec,
  ResultCache,
  buildToolResult,
  compareIds,
  fieldsParameter,
  guardToolResult,
  pageByCount,
  toolErrorFrom,
} from 'mcpctx/shape';
// FrozenRecords reads files, so it has its own entry; mcpctx/shape itself touches no file system.
import { FrozenRecords } from 'mcpctx/shape/files';

/** @typedef {import('mcpctx/shape/files').FlatRecord} FlatRecord */
/** @typedef {import('mcpctx/shape/files').FrozenSnapshot} FrozenSnapshot */
/** @typedef {import('mcpctx/shape').TextToolResult} TextToolResult */

const MODES = ['baseline', 'optimized'];
const PAGE_SIZE = 5;
const CACHE_TTL_MS = 60_000;
/** No optimized result may put more than this many o200k tokens into the context. */
const MAX_RESULT_TOKENS = 4_000;
const MAX_RECORDS = 100_000;
const MAX_FIELD_CHARS = 10_000;
/** find_records returns these by default (those the allowlist has); id and revision always. */
const DEFAULT_FIELDS = ['id', 'revision', 'title', 'state'];
/** Fields every result carries whatever "fields" asks (those the allowlist has). */
const ALWAYS_FIELDS = ['id', 'revision'];

const DEFAULT_SNAPSHOT = fileURLToPath(new URL('./data/snapshot.json', import.meta.url));
const DEFAULT_FIELDS_FILE = fileURLToPath(new URL('./data/fields.json', import.meta.url));

/**
 * What every call needs from one revision of the snapshot, computed once per revision.
 * @typedef {object} View
 * @property {string} revision      hash of the snapshot and allowlist bytes
 * @property {string} shortRevision the first 12 hex digits, as results quote it
 * @property {readonly FlatRecord[]} records  file order
 * @property {FlatRecord[]} sorted  id order (compareIds)
 * @property {Map<string, FlatRecord>} byId
 * @property {readonly string[]} fields   allowed fields, allowlist order
 * @property {Set<string>} allowed
 * @property {import('mcpctx/shape').FieldsParameter} exactFields  exact_record's "fields" (default: all allowed)
 * @property {import('mcpctx/shape').FieldsParameter} findFields   find_records' "fields" (default: DEFAULT_FIELDS)
 */

/**
 * @param {FrozenSnapshot} snapshot
 * @returns {View}
 */
function viewOf(snapshot) {
  const allowed = new Set(snapshot.fields);
  // `known` tells a field no record has (UNKNOWN_FIELD) from one the allowlist leaves out (FIELD_NOT_ALLOWED).
  const shared = { known: snapshot.presentFields, always: snapshot.fields.filter((name) => ALWAYS_FIELDS.includes(name)) };
  return {
    revision: snapshot.revision,
    shortRevision: snapshot.revision.slice(0, 12),
    records: snapshot.records,
    sorted: [...snapshot.records].sort((a, b) => compareIds(a.id, b.id)),
    byId: new Map(snapshot.records.map((record) => [record.id, record])),
    fields: snapshot.fields,
    allowed,
    exactFields: fieldsParameter(snapshot.fields, shared),
    findFields: fieldsParameter(snapshot.fields, { ...shared, defaults: snapshot.fields.filter((name) => DEFAULT_FIELDS.includes(name)) }),
  };
}

/**
 * The `fields` argument in one spelling: null for the default, else sorted, deduplicated, with
 * id and revision (which always come back anyway).
 * @param {readonly string[] | undefined} requested
 * @returns {string[] | null}
 */
function askedFields(requested) {
  return requested === undefined ? null : [...new Set(['id', 'revision', ...requested])].sort();
}

/**
 * Exact, case-sensitive, whole-value match, in id order.
 * @param {View} view
 * @param {string} field
 * @param {string} value
 */
function matching(view, field, value) {
  return view.sorted.filter((record) => Object.hasOwn(record, field) && record[field] === value);
}

/**
 * Runs a handler; a library error (an unknown or disallowed field, a bad cursor, a changed source)
 * becomes an isError result whose text starts with its code and says what to do.
 * @template A
 * @param {(args: A) => Promise<TextToolResult>} handler
 * @returns {(args: A) => Promise<TextToolResult>}
 */
function refusing(handler) {
  return async (args) => {
    try {
      return await handler(args);
    } catch (error) {
      return toolErrorFrom(error);
    }
  };
}

/**
 * @param {string} message
 * @returns {never}
 */
function refuseToStart(message) {
  process.stderr.write(`records-server: refused to start: ${message}\n`);
  process.exit(1);
}

// ---------------------------------------------------------------------------------------------
// Start: check the mode and the data before any session exists.

const mode = process.env.MODE || 'optimized';
if (!MODES.includes(mode)) {
  refuseToStart(`MODE must be "baseline" or "optimized", got ${JSON.stringify(mode)}. Set MODE to one of them (or leave it unset for optimized).`);
}
const snapshotPath = process.env.SNAPSHOT_PATH || DEFAULT_SNAPSHOT;
const fieldsPath = process.env.FIELDS_PATH || DEFAULT_FIELDS_FILE;

/** @type {ResultCache<Record<string, unknown>>} */
const cache = new ResultCache({ ttlMs: CACHE_TTL_MS });
/** @type {FrozenRecords} */
let source;
try {
  source = await FrozenRecords.load({
    path: snapshotPath,
    fieldsPath,
    maxRecords: MAX_RECORDS,
    maxFieldChars: MAX_FIELD_CHARS,
    onChange: () => cache.clear(),
  });
} catch (error) {
  const err = /** @type {{ code?: string, message?: string }} */ (error);
  refuseToStart(
    `${err.code ?? 'ERROR'}: ${err.message ?? String(error)} ` +
      'Fix the file (the rules are in examples/records-server/README.md, "Data rules") and start the server again.',
  );
}
/** @type {CursorCodec} */
let codec;
try {
  // CURSOR_KEY (16+ bytes) lets cursors outlive a restart on the same data; without it each
  // process signs with a random key and its cursors die with it.
  const key = process.env.CURSOR_KEY;
  codec = new CursorCodec(key ? { key } : {});
} catch (error) {
  refuseToStart(`CURSOR_KEY: ${/** @type {Error} */ (error).message} Set a longer CURSOR_KEY or leave it unset for a random key.`);
}

/** @type {View | undefined} */
let view;
/** The current view, after checking that neither file changed (SOURCE_CHANGED if one did). */
async function currentView() {
  const snapshot = await source.current();
  if (view === undefined || view.revision !== snapshot.revision) view = viewOf(snapshot);
  return view;
}

/**
 * Compact JSON text only: structuredContent would send the same bytes a second time.
 * @param {Record<string, unknown>} value
 */
function textResult(value) {
  return buildToolResult(value, { mode: 'text-only' }).result;
}

/**
 * @template A
 * @param {string} name
 * @param {(args: A) => Promise<TextToolResult>} handler
 * @param {string} remedy
 */
function guarded(name, handler, remedy) {
  return guardToolResult(name, refusing(handler), { maxTokens: MAX_RESULT_TOKENS, remedy });
}

const initial = viewOf(source.snapshot);
const fieldList = initial.fields.join(', ');
const cursorArg = z
  .string()
  .nullish()
  .describe('next_cursor from the previous page; omit for the first page');
// The schemas show the allowlist the server started with; each call checks against the current one.

const server = new McpServer({ name: 'mcpctx-records-server', version: '1.0.0' });

server.registerTool(
  'exact_record',
  {
    description: 'Fetch one record by its exact id. Returns {"record": {...}} or, if no record has that id, {"record": null, "note": ...}.',
    inputSchema: z.object({
      id: z.string().describe('The exact id (case-sensitive)'),
      fields: initial.exactFields.zod(z),
    }),
  },
  guarded(
    'exact_record',
    async ({ id, fields }) => {
      const current = await currentView();
      const chosen = current.exactFields.choose(fields);
      const key = { query: { tool: 'exact_record', id }, fields: chosen, cursor: null, revision: current.revision };
      const { value, cache: status } = await cache.lookup(key, () => {
        const record = current.byId.get(id);
        if (record !== undefined) return { record: current.exactFields.project(record, chosen) };
        return {
          record: null,
          note:
            `No record has id ${JSON.stringify(id)} among the ${current.records.length} records of snapshot revision ${current.shortRevision}. ` +
            'Ids match exactly (case-sensitive, no trimming or padding); find ids with ' +
            (mode === 'optimized' ? 'find_records or count_by_field.' : 'list_records.'),
        };
      });
      return textResult({ ...value, cache: status });
    },
    'Ask for fewer fields with "fields".',
  ),
);

if (mode === 'baseline') {
  // The naive shape: every allowed field of every record, no paging, the text mirrored in
  // structuredContent as many servers do.
  server.registerTool(
    'list_records',
    {
      description: 'List all records with all their fields.',
      inputSchema: z.object({}),
    },
    refusing(async () => {
      const current = await currentView();
      const records = current.records.map((record) => Object.fromEntries(Object.entries(record).filter(([name]) => current.allowed.has(name))));
      return buildToolResult({ records }, { mode: 'mirror' }).result;
    }),
  );
} else {
  server.registerTool(
    'find_records',
    {
      description:
        `Find records whose field equals value exactly (case-sensitive, whole value). ${PAGE_SIZE} per page in id order: ` +
        '{items, total_matching, truncated, next_cursor, note}; while truncated, call again with the same arguments and cursor=next_cursor.',
      inputSchema: z.object({
        field: z.string().describe(`One of: ${fieldList}`),
        value: z.string().describe('Exact value ("" matches empty fields)'),
        fields: initial.findFields.zod(z),
        cursor: cursorArg,
      }),
    },
    guarded(
      'find_records',
      async ({ field, value, fields, cursor }) => {
        const current = await currentView();
        current.findFields.check(field, 'field');
        const chosen = current.findFields.choose(fields);
        // Bound to the arguments as asked (the default set as null), not to the fields they
        // resolve to: after an allowlist edit the same arguments then find their cursor stale
        // (the revision covers the allowlist), not foreign.
        const query = { tool: 'find_records', field, value, fields: askedFields(fields) };
        const key = { query, fields: chosen, cursor, revision: current.revision };
        const { value: page, cache: status } = await cache.lookup(key, () => {
          const found = pageByCount({
            items: matching(current, field, value),
            pageSize: PAGE_SIZE,
            cursor: cursor ?? undefined,
            codec,
            binding: { query, revision: current.revision },
          });
          return { ...found, items: found.items.map((record) => current.findFields.project(record, chosen)) };
        });
        return textResult({ ...page, cache: status });
      },
      'Ask for fewer fields with "fields", or fetch records one at a time with exact_record.',
    ),
  );

  server.registerTool(
    'count_by_field',
    {
      description:
        'Count records whose field equals value exactly (case-sensitive, whole value). Returns the count, its definition ' +
        `and the matching ids as an audit trail in items, ${PAGE_SIZE} per page in id order (cursor=next_cursor for more).`,
      inputSchema: z.object({
        field: z.string().describe(`One of: ${fieldList}`),
        value: z.string().describe('Exact value ("" matches empty fields)'),
        cursor: cursorArg,
      }),
    },
    guarded(
      'count_by_field',
      async ({ field, value, cursor }) => {
        const current = await currentView();
        current.findFields.check(field, 'field');
        const query = { tool: 'count_by_field', field, value };
        const key = { query, fields: [], cursor, revision: current.revision };
        const { value: counted, cache: status } = await cache.lookup(key, () => {
          const ids = pageByCount({
            items: matching(current, field, value).map((record) => record.id),
            pageSize: PAGE_SIZE,
            cursor: cursor ?? undefined,
            codec,
            binding: { query, revision: current.revision },
            itemLabel: 'Ids',
            continueHint: 'call again with the same field and value and cursor set to next_cursor for the next ids',
          });
          return {
            count: ids.total_matching,
            definition:
              `Records whose field "${field}" equals ${JSON.stringify(value)} exactly (case-sensitive, whole value), ` +
              `counted over all ${current.records.length} records of snapshot revision ${current.shortRevision}.`,
            ...ids,
          };
        });
        return textResult({ ...counted, cache: status });
      },
      'Page through the ids with cursor.',
    ),
  );
}

await server.connect(new StdioServerTransport());
