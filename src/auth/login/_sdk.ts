import { lazyImport } from '../../lazy/index.js';

/** The MCP SDK's client auth helpers, loaded at the first login or renewal: `mcpctx measure` of a stdio server never pays for them. */
export const oauthSdk = lazyImport(() => import('@modelcontextprotocol/client'));
