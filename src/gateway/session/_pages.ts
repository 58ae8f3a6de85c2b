import { McpctxError } from '../../errors/index.js';
import type { Deadline } from '../../mcp/index.js';
import { isPlainObject, type JsonObject } from '../../json/index.js';
import type { Upstream } from '../upstream/index.js';

/** Bounds on following an upstream's list pagination, as `measure` bounds `tools/list`. */
export const LIST_BOUNDS = { maxPages: 100, maxItems: 10_000 } as const;

export interface CollectedList {
  items: unknown[];
  /** The single page's result when the upstream sent everything in one page: forwarded as is when nothing changes. */
  onlyPage: JsonObject | undefined;
}

/**
 * Follows `nextCursor` of a list method (`tools/list`, `resources/list`, `prompts/list`, ...) to
 * the end, within page and item bounds; a repeated cursor is a loop and fails. With `itemsRequired`
 * a page without the items array is a PROTOCOL error (else it counts as an empty page).
 */
export async function collectList(upstream: Upstream, method: string, itemsKey: string, deadline: Deadline, itemsRequired = false): Promise<CollectedList> {
  const items: unknown[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  let onlyPage: JsonObject | undefined;
  for (let page = 1; ; page += 1) {
    if (page > LIST_BOUNDS.maxPages) {
      throw new McpctxError('TOO_MANY_PAGES', `${upstream.name}: ${method} still had more pages after ${LIST_BOUNDS.maxPages}`, { upstream: upstream.name });
    }
    const result = await upstream.request(method, cursor === undefined ? undefined : { cursor }, deadline);
    if (!isPlainObject(result)) throw new McpctxError('PROTOCOL', `${upstream.name} answered ${method} with something that is not an object`);
    const pageItems = result[itemsKey];
    if ((pageItems !== undefined || itemsRequired) && !Array.isArray(pageItems)) {
      const what = pageItems === undefined ? `without a ${itemsKey} array` : `with a ${itemsKey} that is not an array`;
      throw new McpctxError('PROTOCOL', `${upstream.name} answered ${method} ${what}`, { upstream: upstream.name });
    }
    items.push(...(pageItems ?? []));
    if (items.length > LIST_BOUNDS.maxItems) {
      throw new McpctxError('TOO_MANY_TOOLS', `${upstream.name}: ${method} listed more than ${LIST_BOUNDS.maxItems} ${itemsKey}`, { upstream: upstream.name });
    }
    const next = result.nextCursor;
    if (typeof next !== 'string' || next === '') {
      onlyPage = page === 1 ? result : undefined;
      return { items, onlyPage };
    }
    if (seen.has(next)) throw new McpctxError('CURSOR_LOOP', `${upstream.name}: ${method} repeated the cursor ${JSON.stringify(next).slice(0, 80)}`);
    seen.add(next);
    cursor = next;
  }
}
