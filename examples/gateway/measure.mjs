#!/usr/bin/env node
// @ts-check
// Re-derives the before/after table in docs/gateway.md: the same calls to two real servers directly and
// through `mcpctx gateway` with examples/gateway/gateway.yaml, over real stdio, counting with
// o200k_base what each answer puts into a model's context (its text blocks, and structuredContent's
// JSON unless it repeats a text block: a host hands the model one of the two copies; for
// tools/list, the compact JSON of the tools array).
//
//   node examples/gateway/measure.mjs          the Markdown table docs/gateway.md quotes
//   node examples/gateway/measure.mjs --json   the same figures as JSON
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BoundedStdioTransport, Deadline, RawClient } from 'mcpctx/mcp';
import { structuredCopyOf, toolResultCost } from 'mcpctx/shape';
import { countTokens } from 'mcpctx/tokens';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI = join(ROOT, 'dist/cli/main.js');
const CONFIG = join(ROOT, 'examples/gateway/gateway.yaml');
const PRS = ['examples/pull-requests/server.js', 'before'];
const FILES = ['node_modules/@modelcontextprotocol/server-filesystem/dist/index.js', 'examples'];
const BIG_FILE = 'examples/pull-requests/data/pulls.json';
const BUDGET_MS = 60_000;

/** @param {string[]} args */
async function open(args) {
  const transport = new BoundedStdioTransport({ command: process.execPath, args, cwd: ROOT });
  const client = new RawClient(transport);
  await client.start();
  const deadline = new Deadline(BUDGET_MS, 'initialize');
  await client.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'measure', version: '1' } }, deadline);
  await client.notify('notifications/initialized');
  return {
    /** @returns {Promise<any>} */
    request: (/** @type {string} */ method, /** @type {any} */ params) => client.request(method, params, new Deadline(BUDGET_MS, method)),
    close: () => transport.shutdown(),
  };
}

/** @param {any} result */
const resultTokens = (result) => {
  const cost = toolResultCost(result);
  const copy = structuredCopyOf(result, cost.parts) === null ? 0 : (cost.parts.find((part) => part.kind === 'structured')?.tokens ?? 0);
  return cost.textTokens + cost.binaryFieldTokens - copy;
};
/** @param {any} result */
const listTokens = (result) => countTokens(JSON.stringify(result.tools));

/** @param {(session: Awaited<ReturnType<typeof open>>) => Promise<number>} measure @param {string[]} args */
async function withSession(args, measure) {
  const session = await open(args);
  try {
    return await measure(session);
  } finally {
    await session.close();
  }
}

async function main() {
  const gateway = (/** @type {string} */ config) => [CLI, 'gateway', '--config', config];
  const dir = mkdtempSync(join(tmpdir(), 'mcpctx-gateway-measure-'));
  // The same servers with no rules but the default cap, and with tool search on.
  const capOnly = join(dir, 'cap-only.json');
  const search = join(dir, 'search.json');
  const servers = { prs: { command: 'node', args: PRS }, files: { command: 'node', args: FILES } };
  writeFileSync(capOnly, JSON.stringify({ mcpServers: servers }));
  writeFileSync(search, JSON.stringify({ mcpServers: servers, search: { enabled: true, topK: 5 } }));
  try {
    const directCatalog =
      (await withSession(PRS, async (s) => listTokens(await s.request('tools/list', undefined)))) +
      (await withSession(FILES, async (s) => listTokens(await s.request('tools/list', undefined))));
    const rows = [
      {
        call: 'tools/list (both servers)',
        direct: directCatalog,
        gateway: await withSession(gateway(CONFIG), async (s) => listTokens(await s.request('tools/list', undefined))),
        how: 'gateway.yaml: 4 write tools denied, descriptions capped, outputSchema dropped',
      },
      {
        call: 'tools/list (both servers)',
        direct: directCatalog,
        gateway: await withSession(gateway(search), async (s) => listTokens(await s.request('tools/list', undefined))),
        how: 'search: { enabled: true }: search_tools only',
      },
      {
        call: 'list_pull_requests()',
        direct: await withSession(PRS, async (s) => resultTokens(await s.request('tools/call', { name: 'list_pull_requests', arguments: {} }))),
        gateway: await withSession(gateway(CONFIG), async (s) => resultTokens(await s.request('tools/call', { name: 'prs__list_pull_requests', arguments: {} }))),
        how: 'gateway.yaml: project 7 fields + pageTokens 2000, first page',
      },
      {
        call: 'list_pull_requests(), every page',
        direct: await withSession(PRS, async (s) => resultTokens(await s.request('tools/call', { name: 'list_pull_requests', arguments: {} }))),
        gateway: await withSession(gateway(CONFIG), async (s) => {
          let total = 0;
          /** @type {Record<string, unknown>} */
          let args = {};
          for (let page = 0; page < 100; page += 1) {
            const result = await s.request('tools/call', { name: 'prs__list_pull_requests', arguments: args });
            total += resultTokens(result);
            const next = JSON.parse(result.content[0].text).next_cursor;
            if (next === null) break;
            args = { cursor: next };
          }
          return total;
        }),
        how: 'the same, all 30 pull requests through next_cursor',
      },
      {
        call: 'list_pull_requests()',
        direct: await withSession(PRS, async (s) => resultTokens(await s.request('tools/call', { name: 'list_pull_requests', arguments: {} }))),
        gateway: await withSession(gateway(capOnly), async (s) => resultTokens(await s.request('tools/call', { name: 'prs__list_pull_requests', arguments: {} }))),
        how: 'no rule, capTokens 25,000: offloaded, a preview with a read_result handle',
      },
      {
        call: `read_text_file(${BIG_FILE})`,
        direct: await withSession(FILES, async (s) =>
          resultTokens(await s.request('tools/call', { name: 'read_text_file', arguments: { path: join(ROOT, BIG_FILE) } })),
        ),
        gateway: await withSession(gateway(CONFIG), async (s) =>
          resultTokens(await s.request('tools/call', { name: 'files__read_text_file', arguments: { path: join(ROOT, BIG_FILE) } })),
        ),
        how: 'gateway.yaml: maxTokens 10,000: offloaded',
      },
    ];
    if (process.argv.includes('--json')) {
      process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
      return;
    }
    const lines = ['| call | direct | through the gateway | of direct | rule |', '|---|---:|---:|---:|---|'];
    for (const row of rows) {
      const share = `${((row.gateway / row.direct) * 100).toFixed(2)}%`;
      lines.push(`| ${row.call} | ${row.direct.toLocaleString('en-US')} | ${row.gateway.toLocaleString('en-US')} | ${share} | ${row.how} |`);
    }
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
