/**
 * What the model is given for one MCP tool result, and the figures a receipt keeps of it. Both the
 * runner (building a tool_result) and `verifyReceipt` (re-deriving it from the raw content) call
 * these, so the receipt's model-facing text can only be what the rules below make of the bytes
 * the server sent.
 */
import { countTokens, sha256Hex } from '../../tokens/index.js';
import { isPlainObject, nestsDeeperThan } from '../../json/index.js';

/**
 * The text of a result's `content` as the model gets it:
 * - text blocks, joined with "\n", in order;
 * - any other block (image, audio, resource, ...) becomes the line `[<type> block not forwarded]`
 *   (`unknown` when it has no string type), so the model knows something was left out;
 * - when the result is not an error and `dropResultKeys` is non-empty, a text block that parses
 *   as a JSON object loses those top-level keys and is re-serialized compactly (JSON.stringify,
 *   key order kept); every other text block (not JSON, not an object, nested past
 *   MAX_JSON_DEPTH, or an error result's) is kept byte for byte.
 * `empty` is true when `content` is not an array or the text comes out empty: the model would be
 * given nothing, which the caller must say in band rather than send.
 */
export function modelFacingText(rawContent: unknown, isError: boolean, dropResultKeys: readonly string[]): { text: string; empty: boolean } {
  if (!Array.isArray(rawContent)) return { text: '', empty: true };
  const drop = !isError && dropResultKeys.length > 0 ? dropResultKeys : undefined;
  const lines = rawContent.map((block: unknown) => {
    if (isPlainObject(block) && block.type === 'text' && typeof block.text === 'string') return drop === undefined ? block.text : withoutKeys(block.text, drop);
    const type = isPlainObject(block) && typeof block.type === 'string' ? block.type : 'unknown';
    return `[${type} block not forwarded]`;
  });
  const text = lines.join('\n');
  return { text, empty: text === '' };
}

function withoutKeys(text: string, keys: readonly string[]): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return text;
  }
  // Too deep to re-serialize safely: kept byte for byte, as text that is not an object would be.
  if (!isPlainObject(parsed) || nestsDeeperThan(parsed)) return text;
  for (const key of keys) delete parsed[key];
  return JSON.stringify(parsed);
}

/** UTF-8 bytes and sha256 of JSON.stringify(rawContent); the empty string when there is none (null). */
export function rawContentFigures(rawContent: unknown): { bytes: number; sha256: string } {
  const text = rawContent === null || rawContent === undefined ? '' : JSON.stringify(rawContent);
  return { bytes: Buffer.byteLength(text, 'utf8'), sha256: sha256Hex(text) };
}

/** UTF-8 bytes, sha256 and o200k_base tokens of the text the model was given. */
export function modelFacingFigures(text: string): { bytes: number; sha256: string; tokens: number } {
  return { bytes: Buffer.byteLength(text, 'utf8'), sha256: sha256Hex(text), tokens: countTokens(text) };
}

/**
 * The figures of a warm-cache probe call (a direct call, never shown to a model): its raw content
 * bytes, and the o200k tokens the model would have been given for it, as a result that is not an
 * error under the condition's `dropResultKeys`.
 */
export function probeCallFigures(rawContent: unknown, dropResultKeys: readonly string[]): { rawContentBytes: number; modelFacingTokens: number } {
  return { rawContentBytes: rawContentFigures(rawContent).bytes, modelFacingTokens: countTokens(modelFacingText(rawContent, false, dropResultKeys).text) };
}
