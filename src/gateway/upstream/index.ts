// The gateway's upstream servers: one connection each per client session, checked before anything
// is served, and for the stdio client started before the rest of the gateway loads. Light on
// purpose: the CLI imports it before the gateway itself, so the servers boot meanwhile.
export { Upstream, type UpstreamEvents } from './_upstream.js';
export { prepareUpstreams, type PreparedUpstreams } from './_prepared.js';
