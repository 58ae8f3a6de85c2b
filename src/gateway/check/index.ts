// `mcpctx gateway check`: a config's effective rules and, with its upstreams started, each rule
// against the tools they list (what it matched, rules that match nothing, upstreams that failed).
export { checkGateway, type GatewayCheck, type GatewayCheckOptions, type UpstreamCheck } from './_check.js';
