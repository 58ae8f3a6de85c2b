#!/usr/bin/env node
// @ts-check
// The example of docs/shape.md: the 30 pull requests of examples/pull-requests, as a server
// written with mcpctx/shape would send them. A projection keeps 7 fields, pageByTokens cuts the
// summaries into pages of at most 2,000 tokens with a bound cursor, and a cursor that was edited,
// or that belongs to another query or an older revision of the data, is refused with a remedy.
// The cursor key is fixed so the cursors, and so every count printed, are the same on every run;
// a real server keeps its key secret (or lets CursorCodec pick a random one per process).
//
//   node docs/examples/shape-pages.mjs
import { readFileSync } from 'node:fs';
import { CursorCodec, defineProjection, pageByTokens } from 'mcpctx/shape';
import { countTokens, sha256Hex } from 'mcpctx/tokens';

const file = new URL('../../examples/pull-requests/data/pulls.json', import.meta.url);
const bytes = readFileSync(file, 'utf8');
/** @type {Array<Record<string, unknown>>} */
const pulls = JSON.parse(bytes);
const revision = sha256Hex(bytes); // a cursor is bound to the data it was cut from

// Checked now, against the records: an unknown path would throw here, not when a tool is called.
const summary = defineProjection(
  ['number', 'title', 'state', { path: 'user.login', as: 'author' }, 'created_at', 'merged_at', { path: 'body', maxChars: 200 }],
  { sample: pulls },
);
const codec = new CursorCodec({ key: 'docs-example-cursor-key-0123456789' });
const items = pulls.map((pull) => summary.apply(pull));
const binding = { query: { tool: 'list_pull_requests', state: 'all' }, revision };

console.log(`as GitHub returns them: ${pulls.length} records, ${countTokens(JSON.stringify(pulls)).toLocaleString('en-US')} tokens`);
/** @type {string | undefined} */
let cursor;
let total = 0;
let page = 0;
/** @type {string | undefined} */
let firstCursor;
do {
  const result = pageByTokens({ items, budget: 2000, cursor, codec, binding, idField: 'number' });
  page++;
  total += result.tokens;
  console.log(`page ${page}: records ${result.start + 1}-${result.end}, ${result.tokens.toLocaleString('en-US')} tokens, truncated: ${result.page.truncated}`);
  cursor = result.page.next_cursor ?? undefined;
  firstCursor ??= cursor;
} while (cursor !== undefined);
console.log(`all ${items.length} summaries: ${total.toLocaleString('en-US')} tokens in ${page} pages`);

// Each refusal is an McpctxError whose message tells the model what to do.
const refusals = [
  ['an edited cursor', { cursor: `${firstCursor?.slice(0, -1)}A`, binding }],
  ['a cursor of another query', { cursor: firstCursor, binding: { ...binding, query: { tool: 'list_pull_requests', state: 'open' } } }],
  ['a cursor of older data', { cursor: firstCursor, binding: { ...binding, revision: sha256Hex(`${bytes} `) } }],
];
for (const [what, options] of /** @type {Array<[string, { cursor: string | undefined, binding: typeof binding }]>} */ (refusals)) {
  try {
    pageByTokens({ items, budget: 2000, codec, idField: 'number', ...options });
    console.log(`${what}: accepted`);
  } catch (error) {
    const { code, message } = /** @type {{ code: string, message: string }} */ (error);
    console.log(`${what}: ${code}: ${message}`);
  }
}
