#!/usr/bin/env node
// A stdio server that speaks first: at start, before any initialize, a log notification and a
// roots/list request; once that request is answered, a second notification naming the answer.
// Then it waits for the end of its input. For the gateway's upstreams started before their session.
import { onJsonLines, send as sendMessage } from './_json-lines.mjs';

const send = (message) => sendMessage({ jsonrpc: '2.0', ...message });
send({ method: 'notifications/message', params: { level: 'info', data: 'booted' } });
send({ id: 'early-1', method: 'roots/list' });
onJsonLines((message) => {
  if (message.id === 'early-1' && 'result' in message) {
    send({ method: 'notifications/message', params: { level: 'info', data: `answered ${JSON.stringify(message.result)}` } });
  }
});
process.stdin.on('end', () => process.exit(0));
