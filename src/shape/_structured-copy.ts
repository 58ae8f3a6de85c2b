import { isPlainObject, soleStringMember } from '../json/index.js';
import type { ResultPart } from './_result-parts.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * The content block a result's structuredContent repeats, or null. The MCP spec asks a tool that
 * returns structuredContent to send the same JSON as text too, and a host hands the model one of
 * the two, so what the result costs counts that data once. Recognised without parsing (the texts
 * can be megabytes, read on a server's event loop): a text block that is structuredContent's JSON
 * in any layout (`JSON.stringify(value, null, 2)`), or structuredContent that holds one key whose
 * value is a block's text as a string (`{content: "<the text>"}`) or that JSON. Other forms (keys
 * in another order, escapes written differently) count twice: the measure's result cost, which
 * parses, reports them as duplicates.
 */
export function structuredCopyOf(result: Readonly<Record<string, unknown>>, parts: readonly ResultPart[]): number | null {
  const structured = parts.find((part) => part.kind === 'structured');
  if (structured?.text == null) return null;
  const texts = parts.filter((part) => part.kind === 'text' && part.text !== null);
  const compact = structured.text;
  const found = texts.find((part) => sameJsonInAnyLayout(compact, part.text as string));
  if (found) return found.block;
  const value = result.structuredContent;
  const keys = isPlainObject(value) ? Object.keys(value) : [];
  if (keys.length !== 1) return null;
  const wrappedText = soleStringMember(value)?.text;
  if (wrappedText !== undefined) return texts.find((part) => part.text === wrappedText)?.block ?? null;
  const wrapped = (value as Record<string, unknown>)[keys[0] as string];
  const inner = wrapped === undefined ? undefined : JSON.stringify(wrapped);
  if (inner === undefined) return null;
  return texts.find((part) => sameJsonInAnyLayout(inner, part.text as string))?.block ?? null;
}

/**
 * Whether `text` is the compact JSON `compact` with whitespace between its tokens: one pass,
 * stopping at the first difference. Whitespace inside strings must match exactly.
 */
export function sameJsonInAnyLayout(compact: string, text: string): boolean {
  if (text.length < compact.length) return false;
  let at = 0;
  let inString = false;
  let escaped = false;
  for (let index = 0; index < compact.length; index += 1) {
    const code = compact.charCodeAt(index);
    if (!inString) at = skipJsonSpace(text, at);
    if (text.charCodeAt(at) !== code) return false;
    at += 1;
    if (!inString) inString = code === QUOTE;
    else if (escaped) escaped = false;
    else if (code === BACKSLASH) escaped = true;
    else if (code === QUOTE) inString = false;
  }
  return skipJsonSpace(text, at) === text.length;
}

function skipJsonSpace(text: string, from: number): number {
  let at = from;
  for (let code = text.charCodeAt(at); code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09; code = text.charCodeAt(at)) at += 1;
  return at;
}
