import { McpctxError, isMcpctxError } from '../../errors/index.js';
import type { Deadline } from '../../mcp/index.js';
import { isPlainObject } from '../../json/index.js';
import type { Upstream } from '../upstream/index.js';
import { collectList, type CollectedList } from './_pages.js';

/**
 * Errors that say an upstream's `tools/list` answer itself is unusable (not `{tools: [...]}`, a
 * tool that is not an object or has no string name, one name twice, a cursor loop, too many pages
 * or tools): the same answer would come again, so the upstream stays out of this session's
 * catalog and calls to its tools are refused. A timeout or a dead pipe is not one of these.
 */
const MALFORMED_CATALOG_CODES = ['PROTOCOL', 'CURSOR_LOOP', 'TOO_MANY_PAGES', 'TOO_MANY_TOOLS'] as const;

export function isMalformedCatalog(error: unknown): boolean {
  return MALFORMED_CATALOG_CODES.some((code) => isMcpctxError(error, code));
}

/**
 * An upstream's whole `tools/list` (every page), checked before any trust gate or rule sees it:
 * an answer without a `tools` array, a tool that is not an object or has no string name, or a
 * name listed twice is a PROTOCOL error naming the first problem. Two definitions under one name
 * leave the gateway guessing which one the model reads and which one a pin or the argument check
 * should hold to, so the whole list is refused, not one of the two.
 */
export async function readToolList(upstream: Upstream, deadline: Deadline): Promise<CollectedList> {
  const collected = await collectList(upstream, 'tools/list', 'tools', deadline, true);
  const seen = new Set<string>();
  collected.items.forEach((tool, index) => {
    if (!isPlainObject(tool)) {
      throw new McpctxError('PROTOCOL', `${upstream.name} listed a tool that is not an object (tools[${index}])`, { upstream: upstream.name });
    }
    if (typeof tool.name !== 'string') {
      throw new McpctxError('PROTOCOL', `${upstream.name} listed a tool without a string name (tools[${index}])`, { upstream: upstream.name });
    }
    if (seen.has(tool.name)) {
      throw new McpctxError('PROTOCOL', `${upstream.name} listed the tool ${JSON.stringify(tool.name).slice(0, 200)} twice`, { upstream: upstream.name });
    }
    seen.add(tool.name);
  });
  return collected;
}
