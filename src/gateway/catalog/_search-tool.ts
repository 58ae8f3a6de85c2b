import type { ToolIndex } from '../../toolsearch/index.js';
import type { Catalog } from './_catalog.js';
import type { JsonObject } from '../../json/index.js';

export const SEARCH_TOOL_NAME = 'search_tools';
/** Most definitions one search returns, whatever `limit` asks: each costs tokens in the answer. */
const MAX_LIMIT = 20;

/** The `search_tools` definition offered in place of the full catalog. */
export function searchToolDefinition(topK: number): JsonObject {
  return {
    name: SEARCH_TOOL_NAME,
    description:
      'Find the tools you need. The full tool list is not shown to save context: describe the task in a few words ' +
      `and get the best matching tool definitions (default ${topK}). Found tools can then be called by name.`,
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'What you want to do, e.g. "list open pull requests".' },
        limit: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, description: `How many tools to return (default ${topK}).` },
      },
      required: ['query'],
    },
  };
}

/** Runs one search: the matching definitions as compact JSON text, or a plain "no tool matches". */
export function searchToolResult(
  index: ToolIndex,
  catalog: Catalog,
  args: JsonObject | undefined,
  topK: number,
): { result: JsonObject; found: string[] } {
  const query = args?.query;
  if (typeof query !== 'string' || query.trim() === '') {
    return { result: textResult('search_tools needs a non-empty "query": say in a few words what you want to do.', true), found: [] };
  }
  const asked = args?.limit;
  const limit = Number.isInteger(asked) && (asked as number) >= 1 ? Math.min(asked as number, MAX_LIMIT) : topK;
  const matches = index.search(query, { limit });
  if (matches.length === 0) {
    return {
      result: textResult(`No tool matches ${JSON.stringify(query)}. Try other words for the task, or a shorter query.`, false),
      found: [],
    };
  }
  const tools = matches.flatMap((match) => {
    const tool = catalog.byName.get(match.name);
    return tool ? [tool.definition] : [];
  });
  const text = JSON.stringify({ tools, note: 'Call any of these tools by its name.' });
  return { result: textResult(text, false), found: tools.map((tool) => String(tool.name)) };
}

function textResult(text: string, isError: boolean): JsonObject {
  return isError ? { content: [{ type: 'text', text }], isError: true } : { content: [{ type: 'text', text }] };
}
