// A tiny relay for the HTTP front's tests: it answers the client's requests itself, records
// every message it receives, and can make server requests of the client.
import { type FrontConnection, type JsonRpcMessage } from '../../src/gateway/index.js';

export interface EchoRelay {
  connections: FrontConnection[];
  received: JsonRpcMessage[];
  closeReasons: string[];
  onConnection: (connection: FrontConnection) => void;
}

export function echoRelay(): EchoRelay {
  const relay: EchoRelay = { connections: [], received: [], closeReasons: [], onConnection: () => undefined };
  relay.onConnection = (connection) => {
    relay.connections.push(connection);
    // Calls waiting for the client's answer to a server request, by that request's id.
    const waiting = new Map<string, string | number>();
    let serverRequests = 0;
    connection.onclose = (reason) => relay.closeReasons.push(reason);
    connection.onmessage = (message) => {
      relay.received.push(message);
      const id = message.id as string | number | undefined;
      const params = (message.params ?? {}) as Record<string, unknown>;
      const reply = (result: unknown): void => {
        void connection.send({ jsonrpc: '2.0', id, result }, { relatedRequestId: id }).catch(() => undefined);
      };
      if (!('method' in message)) {
        // The client's answer to a server request: finish the call that made it.
        const callId = waiting.get(String(message.id));
        if (callId === undefined) return;
        waiting.delete(String(message.id));
        void connection.send({ jsonrpc: '2.0', id: callId, result: { content: [{ type: 'text', text: JSON.stringify(message.result) }] } }, { relatedRequestId: callId });
        return;
      }
      switch (message.method) {
        case 'initialize':
          if (params.protocolVersion === 'refuse-me') {
            void connection.send({ jsonrpc: '2.0', id, error: { code: -32602, message: 'Unsupported protocol version' } }, { relatedRequestId: id });
            return;
          }
          reply({ protocolVersion: params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'echo', version: '1.0.0' } });
          return;
        case 'tools/list':
          reply({ tools: [{ name: 'echo', description: 'Echoes its arguments', inputSchema: { type: 'object' } }] });
          return;
        case 'echo/raw':
          reply(params);
          return;
        case 'ping':
          reply({});
          return;
        case 'tools/call': {
          if (params.name === 'ask' && id !== undefined) {
            serverRequests += 1;
            const requestId = `srv-${serverRequests}`;
            waiting.set(requestId, id);
            void connection.send({ jsonrpc: '2.0', id: requestId, method: 'sampling/createMessage', params: { messages: [], maxTokens: 5 } });
            return;
          }
          void connection.send(
            { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'p', progress: 1, total: 2 } },
            { relatedRequestId: id },
          );
          reply({ content: [{ type: 'text', text: JSON.stringify(params.arguments ?? {}) }] });
          return;
        }
        default:
          if (id !== undefined) {
            void connection.send({ jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } }, { relatedRequestId: id });
          }
      }
    };
  };
  return relay;
}
