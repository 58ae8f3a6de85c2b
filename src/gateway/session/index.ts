// One client session of the gateway: the session itself (requests dispatched by method, ids
// remapped per upstream, notifications both ways), its tools (`tools/list`, `tools/call` through
// the call checks, relay and shaping), its relay of everything else (routes), what its handlers
// see of it (context), list pagination and the requests the gateway relays to the client.
export { GatewaySession } from './_session.js';
export { TOOLS_PAGE_SIZE } from './_tools.js';
export { type SessionServices } from './_context.js';
export { readToolList } from './_tool-list.js';
