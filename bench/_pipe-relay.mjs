#!/usr/bin/env node
// The floor of any stdio relay written in Node: one process in the middle that copies bytes both
// ways and reads nothing (no parsing, no ids, no rules). The gateway benchmark runs it beside the
// gateway, so the latency of the extra process hop itself is seen apart from the gateway's work.
// Usage: node bench/_pipe-relay.mjs -- <command> [args...]
import { spawn } from 'node:child_process';

const separator = process.argv.indexOf('--');
const [command, ...args] = separator === -1 ? [] : process.argv.slice(separator + 1);
if (command === undefined) {
  process.stderr.write('usage: node bench/_pipe-relay.mjs -- <command> [args...]\n');
  process.exit(2);
}
const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
process.stdin.pipe(child.stdin);
child.stdout.pipe(process.stdout);
child.stdin.on('error', () => {});
// The client went away: end the server the way a client would (end of its input).
process.stdin.on('end', () => child.stdin.end());
child.on('exit', (code) => process.exit(code ?? 1));
for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => child.kill(signal));
