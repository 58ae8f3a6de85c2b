import { createRequire } from 'node:module';

// package.json sits two levels up from both src/mcp and dist/mcp.
const manifest = createRequire(import.meta.url)('../../package.json') as { name: string; version: string };

/** How mcpctx introduces itself in `initialize`, and what `mcpctx --version` prints. */
export const MCPCTX_CLIENT_INFO = Object.freeze({ name: manifest.name, version: manifest.version });
