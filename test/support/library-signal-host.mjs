// A program that uses mcpctx as a library (not the CLI): it starts a scripted server whose
// descendants leave its process group, prints "ready <pids>" and waits. The test then signals it.
// Usage: node library-signal-host.mjs <dist mcp entry> <scripted server> [own-handler]
import { pathToFileURL } from 'node:url';

const [entry, scriptedServer, ownHandler] = process.argv.slice(2);
const { BoundedStdioTransport, Deadline, RawClient, initialize } = await import(pathToFileURL(entry).href);
const marks = Object.fromEntries(Object.entries(process.env).filter(([name]) => name.startsWith('MCPCTX_TEST_')));

if (ownHandler === 'own-handler') {
  // A program that handles the signal itself: mcpctx must leave it alone; exiting ends the servers.
  process.on('SIGTERM', () => process.exit(0));
}

const transport = new BoundedStdioTransport({ command: process.execPath, args: [scriptedServer, 'escapees-hang'], env: marks });
const client = new RawClient(transport);
await client.start();
await initialize(client, { deadline: new Deadline(20_000, 'initialize') });
const until = Date.now() + 20_000;
let pids = [];
while (Date.now() < until) {
  pids = [...transport.stderrTail.matchAll(/(?:setsid|daemon) pid (\d+)/g)].map((match) => Number(match[1]));
  if (pids.length === 2) break;
  await new Promise((resolve) => setTimeout(resolve, 50));
}
process.stdout.write(`ready ${transport.pid} ${pids.join(' ')}\n`);
setInterval(() => {}, 1 << 30);
