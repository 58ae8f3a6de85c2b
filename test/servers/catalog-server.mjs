// A stdio MCP server whose catalog is a file the test edits: tools/list reads CATALOG_FILE each
// time; every tools/call is appended to CALL_LOG (one JSON line) before it is answered, so a test
// can prove a call never reached it; calling `reload_catalog` makes it send
// notifications/tools/list_changed, as a server whose tools changed does.
import { appendFileSync, readFileSync } from 'node:fs';
import { onJsonLines, send } from './_json-lines.mjs';

const catalogFile = process.env.CATALOG_FILE;
const callLog = process.env.CALL_LOG;
if (!catalogFile || !callLog) {
  process.stderr.write('catalog-server: CATALOG_FILE and CALL_LOG are required\n');
  process.exit(2);
}

onJsonLines((/** @type {{ id?: unknown, method?: string, params?: Record<string, unknown> }} */ message) => {
  if (message.id === undefined) return;
  const reply = (/** @type {unknown} */ result) => send({ jsonrpc: '2.0', id: message.id, result });
  switch (message.method) {
    case 'initialize':
      reply({ protocolVersion: message.params?.protocolVersion ?? '2025-11-25', capabilities: { tools: { listChanged: true } }, serverInfo: { name: 'catalog-server', version: '1.0.0' } });
      return;
    case 'tools/list':
      reply({ tools: JSON.parse(readFileSync(catalogFile, 'utf8')) });
      return;
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
