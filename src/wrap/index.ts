// `mcpctx gateway wrap` / `unwrap`: put the gateway in front of one client's servers by rewriting
// that client's config file (a backup and a manifest beside it, the gateway config in the user's
// config folder), and put the file back byte for byte. Planning (`_plan.ts`) decides and builds
// every text without writing; applying (`_apply.ts`) writes or removes what it wrote; unwrapping
// (`_unwrap.ts`) restores. The client-file editor is `_client-edit.ts`.
export { applyWrap, type WrapManifestFile } from './_apply.js';
export { REDACTED, redact, unifiedDiff } from '../text/index.js';
export { defaultLaunch, planWrap } from './_plan.js';
export { unwrap, type UnwrapResult } from './_unwrap.js';
export { GATEWAY_ENTRY, WRAP_CLIENTS, type GatewayLaunch, type NotFronted, type WrapClient, type WrapOptions, type WrapPlan, type WrapRefusal } from './_types.js';
