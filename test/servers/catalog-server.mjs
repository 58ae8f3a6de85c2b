// A stdio MCP server whose catalog is a file the test edits: tools/list reads CATALOG_FILE each
// time; every tools/call is appended to CALL_LOG (one JSON line) before it is answered, so a test
// can prove a call never reached it; calling `reload_catalog` makes it send
// notifications/tools/list_changed, as a server whose tools changed does.
// CATALOG_FILE is a JSON array of tools, or an object { tools, instructions, prompts, resources,
// resourceTemplates, promptMessages } read at every request: initialize answers its
// instructions (and the prompts and resources capabilities when it has them), prompts/get answers
// promptMessages[name] (or one plain user message), resources/read one text content; prompts/get
// and resources/read are logged in CALL_LOG too (name `prompts/get NAME`, `resources/read URI`).
import { appendFileSync, readFileSync } from 'node:fs';
import { onJsonLines, send } from './_json-lines.mjs';

const catalogFile = process.env.CATALOG_FILE;
const callLog = process.env.CALL_LOG;
if (!catalogFile || !callLog) {
  process.stderr.write('catalog-server: CATALOG_FILE and CALL_LOG are required\n');
  process.exit(2);
}

/** @returns {{ tools: unknown[], instructions?: string, prompts?: unknown[], resources?: unknown[], resourceTemplates?: unknown[], promptMessages?: Record<string, unknown> }} */
function catalog() {
  const parsed = JSON.parse(readFileSync(/** @type {string} */ (catalogFile), 'utf8'));
  return Array.isArray(parsed) ? { tools: parsed } : parsed;
}

const log = (/** @type {string} */ name, /** @type {unknown} */ args) => appendFileSync(/** @type {string} */ (callLog), `${JSON.stringify({ name, arguments: args ?? null })}\n`);

onJsonLines((/** @type {{ id?: unknown, method?: string, params?: Record<string, unknown> }} */ message) => {
  if (message.id === undefined) return;
  const reply = (/** @type {unknown} */ result) => send({ jsonrpc: '2.0', id: message.id, result });
  switch (message.method) {
    case 'initialize': {
      const current = catalog();
      /** @type {Record<string, unknown>} */
      const capabilities = { tools: { listChanged: true } };
      if (current.prompts) capabilities.prompts = { listChanged: true };
      if (current.resources || current.resourceTemplates) capabilities.resources = { listChanged: true };
      const answer = { protocolVersion: message.params?.protocolVersion ?? '2025-11-25', capabilities, serverInfo: { name: 'catalog-server', version: '1.0.0' } };
      reply(current.instructions === undefined ? answer : { ...answer, instructions: current.instructions });
      return;
    }
    case 'tools/list':
      reply({ tools: catalog().tools });
      return;
    case 'prompts/list':
      reply({ prompts: catalog().prompts ?? [] });
      return;
    case 'resources/list':
      reply({ resources: catalog().resources ?? [] });
      return;
    case 'resources/templates/list':
      reply({ resourceTemplates: catalog().resourceTemplates ?? [] });
      return;
    case 'prompts/get': {
      const name = String(message.params?.name);
      log(`prompts/get ${name}`, message.params?.arguments);
      reply(catalog().promptMessages?.[name] ?? { messages: [{ role: 'user', content: { type: 'text', text: `prompt ${name}` } }] });
      return;
    }
    case 'resources/read': {
      const uri = String(message.params?.uri);
      log(`resources/read ${uri}`, null);
      reply({ contents: [{ uri, mimeType: 'text/plain', text: `content of ${uri}` }] });
      return;
    }
    case 'tools/call': {
      const name = String(message.params?.name);
      appendFileSync(callLog, `${JSON.stringify({ name, arguments: message.params?.arguments ?? null })}\n`);
      reply({ content: [{ type: 'text', text: `called ${name}` }] });
      if (name === 'reload_catalog') send({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
      return;
    }
    case 'ping':
      reply({});
      return;
    default:
      send({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: `Method not found: ${message.method}` } });
  }
});
