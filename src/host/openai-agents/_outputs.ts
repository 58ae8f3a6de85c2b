import { isPlainObject } from '../../json/index.js';

/**
 * A function_call_result's output as the Agents SDK keeps it, read for the shaper and written back
 * in the same form. The SDK keeps a tool's string (a function tool's, or an MCP tool's
 * structuredContent with `useStructuredContent`) as one `{type: "text", text}`, and an MCP tool's
 * text blocks as a list of `input_text` items. The first goes to the shaper as its string (the
 * shaper reads a host's notice or a JSON-encoded result in it), the second as MCP `text` blocks.
 * Images and files are left as they came: they are not text the rules read, and the SDK sends
 * them to the model as they are.
 */
export type ReadItemOutput =
  | { readonly shapeable: true; readonly hostOutput: unknown; readonly write: (hostOutput: unknown) => unknown }
  | { readonly shapeable: false; readonly why: string };

/** What the shaper reads of a function_call_result output. */
export function readItemOutput(output: unknown): ReadItemOutput {
  if (typeof output === 'string') return { shapeable: true, hostOutput: output, write: (shaped) => textOf(shaped) };
  if (isPlainObject(output) && output.type === 'text' && typeof output.text === 'string') {
    return { shapeable: true, hostOutput: output.text, write: (shaped) => ({ type: 'text', text: textOf(shaped) }) };
  }
  const blocks = Array.isArray(output) ? output : undefined;
  if (blocks === undefined || blocks.length === 0) return { shapeable: false, why: 'not a text output' };
  const content: Array<{ type: 'text'; text: string }> = [];
  for (const block of blocks) {
    const text = isPlainObject(block) && (block.type === 'input_text' || block.type === 'text') && typeof block.text === 'string' ? block.text : undefined;
    if (text === undefined) return { shapeable: false, why: 'it holds images or files, left as they came' };
    content.push({ type: 'text', text });
  }
  return { shapeable: true, hostOutput: content, write: inputTextBlocks };
}

/** A string the shaper gave back for a string, as it is. */
function textOf(shaped: unknown): string {
  return typeof shaped === 'string' ? shaped : inputTextBlocks(shaped).map((block) => block.text).join('\n\n');
}

/** MCP text blocks the shaper gave back (the rules' JSON, a preview, a page, a refusal) as `input_text` items. */
function inputTextBlocks(shaped: unknown): Array<{ type: 'input_text'; text: string }> {
  if (typeof shaped === 'string') return [{ type: 'input_text', text: shaped }];
  const blocks = Array.isArray(shaped) ? shaped : [];
  return blocks
    .filter((block): block is { type: 'text'; text: string } => isPlainObject(block) && block.type === 'text' && typeof block.text === 'string')
    .map((block) => ({ type: 'input_text', text: block.text }));
}
