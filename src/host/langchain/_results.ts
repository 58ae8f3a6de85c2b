import { isPlainObject } from '../../json/index.js';

/**
 * The two forms of one MCP tool result in @langchain/mcp-adapters 1.1.4, and the translation
 * between them and the CallToolResult the shaper reads.
 *
 * What afterToolCall receives (dist/tools.js, _callTool, lines 393-394): `[content, artifacts]`,
 * `content` the text (one text block) or LangChain content blocks, `artifacts` the embedded
 * resources. A lone text block with structuredContent or _meta arrives as `[block]` with
 * `structuredContent`/`meta` set on the block, while the tool's default output is the block
 * itself (dist/tools.js 324-328), which @langchain/core turns into the ToolMessage's content as
 * `JSON.stringify(block)` (core dist/tools/index.js 352-354): the text JSON-escaped and the
 * structured copy beside it, both in the model's context.
 */
export type LangChainContent = string | readonly unknown[];
export type LangChainToolResult = readonly [LangChainContent, readonly unknown[]];

const STRUCTURED = 'mcp_structured_content';
const META = 'mcp_meta';

/** A lone text block carrying the result's structuredContent or _meta, as the adapter hands it to afterToolCall. */
function textBlockWithFields(content: LangChainContent): Record<string, unknown> | undefined {
  if (typeof content === 'string' || content.length !== 1) return undefined;
  const [block] = content;
  if (!isPlainObject(block) || block.type !== 'text' || typeof block.text !== 'string') return undefined;
  return Object.hasOwn(block, 'structuredContent') || Object.hasOwn(block, 'meta') ? block : undefined;
}

/**
 * The tool's output as the adapter gives it without a hook. The hook must always answer: an
 * async afterToolCall that answers nothing is refused by the adapter's own zod check of the
 * hook's return ("✖ Required", dist/hooks.js 86-87 lists z.promise(object) first), so a result
 * the rules pass is handed back in the form the adapter itself would have given.
 */
export function untouchedOutput([content, artifacts]: LangChainToolResult): LangChainToolResult {
  const block = textBlockWithFields(content);
  if (block === undefined) return [content, artifacts];
  return [block as unknown as LangChainContent, [...artifacts, ...fieldArtifacts(block.structuredContent, block.meta)]];
}

/** The MCP CallToolResult a LangChain content array stands for (text blocks back to MCP text; other blocks as they are). */
export function callToolResultOf(content: readonly unknown[]): Record<string, unknown> {
  const result: Record<string, unknown> = {
    content: content.map((block) => (isPlainObject(block) && block.type === 'text' && typeof block.text === 'string' ? { type: 'text', text: block.text } : block)),
  };
  const fields = textBlockWithFields(content);
  if (fields !== undefined && fields.structuredContent !== undefined) result.structuredContent = fields.structuredContent;
  if (fields !== undefined && fields.meta !== undefined) result._meta = fields.meta;
  return result;
}

/**
 * A shaped CallToolResult as the tool's output: its text as one string when it is all text (what
 * the model reads), other blocks as they came; its structuredContent and _meta as the adapter's
 * own artifacts, which the model never sees.
 */
export function toolOutputOf(shaped: Record<string, unknown>, artifacts: readonly unknown[]): LangChainToolResult {
  const blocks = Array.isArray(shaped.content) ? (shaped.content as unknown[]) : [];
  const allText = blocks.every((block) => isPlainObject(block) && block.type === 'text' && typeof block.text === 'string');
  const content: LangChainContent = allText ? blocks.map((block) => (block as { text: string }).text).join('\n\n') : blocks;
  return [content, [...artifacts, ...fieldArtifacts(shaped.structuredContent, shaped._meta)]];
}

function fieldArtifacts(structuredContent: unknown, meta: unknown): unknown[] {
  return [...(structuredContent === undefined ? [] : [{ type: STRUCTURED, data: structuredContent }]), ...(meta === undefined ? [] : [{ type: META, data: meta }])];
}
