// Reading what the gateway sends for a large result the way a client (or a model) would: find the
// preview in the result's text, then walk read_result with the cursors each page gives.

export type ToolResult = Record<string, unknown>;
export type CallTool = (name: string, args: Record<string, unknown>) => Promise<ToolResult>;

export interface Preview {
  readonly handle: string;
  readonly next_cursor: string | null;
  readonly items: readonly unknown[];
  readonly note: string;
  readonly [key: string]: unknown;
}

/** The text of each text block of a result. */
export function texts(result: ToolResult): string[] {
  const content = Array.isArray(result.content) ? (result.content as unknown[]) : [];
  return content.flatMap((block) => (typeof block === 'object' && block !== null && (block as { type?: unknown }).type === 'text' ? [String((block as { text?: unknown }).text)] : []));
}

/** The first text block that is a JSON value, parsed. */
export function jsonOf(result: ToolResult): unknown {
  for (const text of texts(result)) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      // not this block
    }
  }
  throw new Error(`no text block of the result is JSON: ${JSON.stringify(result).slice(0, 500)}`);
}

/** The offload preview a result carries (a JSON text block with a handle), or a failure showing the result. */
export function previewOf(result: ToolResult): Preview {
  for (const text of texts(result)) {
    let value: unknown;
    try {
      value = JSON.parse(text) as unknown;
    } catch {
      continue;
    }
    if (typeof value === 'object' && value !== null && typeof (value as { handle?: unknown }).handle === 'string') return value as Preview;
  }
  throw new Error(`the result holds no offload preview: ${JSON.stringify(result).slice(0, 500)}`);
}

/** The text an item of a text page carries: a piece of it, or a `{member: piece}` of the stored object. */
function pieceOf(item: unknown, where: string): string {
  if (typeof item === 'string') return item;
  if (typeof item === 'object' && item !== null && !Array.isArray(item)) {
    const keys = Object.keys(item);
    const value = (item as Record<string, unknown>)[keys[0] ?? ''];
    if (keys.length === 1 && typeof value === 'string') return value;
  }
  const keys = typeof item === 'object' && item !== null ? Object.keys(item) : [];
  throw new Error(`${where} is not a whole piece of the text (a string, or one member holding a string): ${typeof item} with keys ${JSON.stringify(keys)}`);
}

export interface Walk {
  readonly text: string;
  readonly pages: number;
  /** What the page without a next_cursor said (the walk ended there). */
  readonly lastPage: string;
  /** Pages that gave a next_cursor yet said `truncated: false`. */
  readonly contradictions: readonly string[];
}

/**
 * Reads an offloaded text from its preview to the end: the preview's own items, then every page
 * read_result gives for the cursor before it, until a page has no next_cursor. With `select.path`
 * the walk reads that value instead, from its first page (the preview's items are not of it).
 */
export async function walkOffloadedText(callTool: CallTool, preview: Preview, select: { path?: string } = {}, maxPages = 2000): Promise<Walk> {
  let text = select.path !== undefined ? '' : preview.items.map((item, index) => pieceOf(item, `preview item ${index}`)).join('');
  let cursor: string | null | undefined = select.path !== undefined ? undefined : preview.next_cursor;
  let pages = 0;
  let lastPage = 'the preview has no next_cursor';
  const contradictions: string[] = [];
  while (typeof cursor === 'string' || cursor === undefined) {
    if (pages >= maxPages) throw new Error(`read_result gave more than ${maxPages} pages`);
    const result = await callTool('read_result', { handle: preview.handle, ...select, ...(cursor === undefined ? {} : { cursor }) });
    pages += 1;
    if (result.isError === true) throw new Error(`read_result page ${pages} was refused: ${texts(result).join(' ')}`);
    const page = jsonOf(result) as { items?: unknown; next_cursor?: unknown; truncated?: unknown; note?: unknown };
    if (!Array.isArray(page.items)) throw new Error(`read_result page ${pages} has no items: ${JSON.stringify(page).slice(0, 300)}`);
    text += page.items.map((item, index) => pieceOf(item, `page ${pages} item ${index}`)).join('');
    cursor = typeof page.next_cursor === 'string' ? page.next_cursor : null;
    if (cursor !== null && page.truncated === false) contradictions.push(`page ${pages}`);
    if (cursor === null) lastPage = `page ${pages}: next_cursor ${JSON.stringify(page.next_cursor)}, truncated ${JSON.stringify(page.truncated)}, note ${JSON.stringify(page.note)}`;
  }
  return { text, pages, lastPage, contradictions };
}
