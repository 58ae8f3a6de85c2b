// _sha256.ts for a browser (tools/build.mjs swaps it in for the site's in-browser verify): a page
// has no synchronous sha256, so the page hashes with SubtleCrypto and never calls this.
import { McpctxError } from '../errors/index.js';
import type * as NodeSha256 from './_sha256.js';

export function sha256Hex(_input: string | Uint8Array): string {
  throw new McpctxError('INVALID_ARGUMENT', 'sha256Hex is not available in a browser: hash with crypto.subtle.digest');
}

({ sha256Hex }) satisfies typeof NodeSha256;
