#!/usr/bin/env node
// @ts-check
// Re-derives the token figures in README.md: starts server.js in each mode on the bundled data,
// makes the same calls over real stdio and counts, with o200k_base, what each result puts into a
// model's context (every text block, plus the compact JSON of structuredContent when there is one).
//
//   node examples/records-server/measure.mjs          the Markdown table README.md quotes
//   node examples/records-server/measure.mjs --json   the same figures as JSON
import { fileURLToPath } from 'node:url';
import { BoundedStdioTransport, Deadline, RawClient, initialize, listAllTools } from 'mcpctx/mcp';
import { toolResultCost } from 'mcpctx/shape';
import { countTokens } from 'mcpctx/tokens';

const SERVER = fileURLToPath(new URL('./server.js', import.meta.url));
const SNAPSHOT_PATH = fileURLToPath(new URL('./data/snapshot.json', import.meta.url));
const FIELDS_PATH = fileURLToPath(new URL('./data/fields.json', import.meta.url));
const BUDGET_MS = 30_000;
// A fixed cursor key, so that next_cursor, and with it every figure, is the same on every run.
const CURSOR_KEY = 'records-server measure.mjs fixed key';

/**
 * @typedef {object} Row
 * @property {string} mode
 * @property {string} call
 * @property {number} calls    tools/call requests (pages) summed in this row
 * @property {number} items    records (or ids) in the results
 * @property {number} textTokens
 * @property {number} structuredTokens
 * @property {number} tokens   what the model is sent: text + structured
 */

/**
 * The calls per mode; `allPages` follows next_cursor to the end and sums the pages in one row.
 * @type {Record<string, Array<[string, Record<string, unknown>, { allPages?: boolean }?]>>}
 */
const CALLS = {
  baseline: [
    ['list_records', {}],
    ['exact_record', { id: '3045' }],
  ],
  optimized: [
    ['find_records', { field: 'state', value: 'open' }],
    ['find_records', { field: 'state', value: 'open' }, { allPages: true }],
    ['find_records', { field: 'is_pull_request', value: 'true' }],
    ['count_by_field', { field: 'state', value: 'open' }],
    ['exact_record', { id: '3045' }],
  ],
};

/**
 * @param {string} mode
 * @returns {Promise<{ catalogTokens: number, tools: number, rows: Row[] }>}
 */
async function measureMode(mode) {
  const transport = new BoundedStdioTransport({
    command: process.execPath,
    args: [SERVER],
    env: { MODE: mode, SNAPSHOT_PATH, FIELDS_PATH, CURSOR_KEY },
    inheritEnv: true,
  });
  const client = new RawClient(transport);
  try {
    await client.start();
    await initialize(client, { deadline: new Deadline(BUDGET_MS, 'initialize') });
    const { tools } = await listAllTools(client, { deadline: new Deadline(BUDGET_MS, 'tools/list') });
    /** @type {Row[]} */
    const rows = [];
    for (const [name, args, options] of CALLS[mode] ?? []) {
      const row = { mode, call: `${name} ${JSON.stringify(args)}`, calls: 0, items: 0, textTokens: 0, structuredTokens: 0, tokens: 0 };
      /** @type {unknown} */
      let cursor;
      do {
        const result = /** @type {import('mcpctx/shape').GuardableResult} */ (
          await client.request('tools/call', { name, arguments: cursor === undefined ? args : { ...args, cursor } }, new Deadline(BUDGET_MS, name))
        );
        if (result.isError === true) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
        const first = /** @type {{ text?: string }[]} */ (result.content ?? [])[0];
        const value = JSON.parse(first?.text ?? 'null');
        // What the result puts into context, as mcpctx/shape defines it: text blocks, then structuredContent.
        const { parts, textTokens: tokens } = toolResultCost(result);
        const textTokens = parts.filter((part) => part.kind !== 'structured').reduce((sum, part) => sum + (part.tokens ?? 0), 0);
        row.calls += 1;
        row.items += (value.items ?? value.records ?? [value.record]).length;
        row.textTokens += textTokens;
        row.structuredTokens += tokens - textTokens;
        row.tokens += tokens;
        cursor = options?.allPages === true ? (value.next_cursor ?? undefined) : undefined;
      } while (cursor !== undefined);
      rows.push(row);
    }
    return { catalogTokens: countTokens(JSON.stringify(tools)), tools: tools.length, rows };
  } finally {
    await transport.shutdown();
  }
}

const baseline = await measureMode('baseline');
const optimized = await measureMode('optimized');

if (process.argv.includes('--json')) {
  process.stdout.write(`${JSON.stringify({ baseline, optimized }, null, 2)}\n`);
} else {
  const number = (/** @type {number} */ n) => n.toLocaleString('en-US');
  const lines = [
    '| mode | call | calls | items | text | structuredContent | tokens sent |',
    '|---|---|---:|---:|---:|---:|---:|',
  ];
  for (const row of [...baseline.rows, ...optimized.rows]) {
    lines.push(
      `| ${row.mode} | \`${row.call}\`${row.calls > 1 ? ', every page' : ''} | ${row.calls} | ${row.items} | ${number(row.textTokens)} | ${number(row.structuredTokens)} | ${number(row.tokens)} |`,
    );
  }
  lines.push(
    `| baseline | catalog (\`tools/list\`, ${baseline.tools} tools) | | | | | ${number(baseline.catalogTokens)} |`,
    `| optimized | catalog (\`tools/list\`, ${optimized.tools} tools) | | | | | ${number(optimized.catalogTokens)} |`,
  );
  process.stdout.write(`${lines.join('\n')}\n`);
}
