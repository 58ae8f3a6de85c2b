import { McpctxError, isMcpctxError } from '../errors/index.js';
import { countTokens, isPlainObject } from '../tokens/index.js';
import { formatText, type TextFormat } from './_formats.js';

/** The subset of MCP's CallToolResult this library builds; assignable to the SDK's type. */
export interface TextToolResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

export interface BuildToolResultOptions {
  /** Text format; default `json` (compact). */
  readonly format?: TextFormat;
  /**
   * `mirror` (default for JSON objects): the text block and `structuredContent` are the same JSON
   * value. `text-only`: no `structuredContent`, so the result is paid for once. CSV and TOON are
   * always text only: structured content would be a second copy in another syntax.
   */
  readonly mode?: 'mirror' | 'text-only';
}

export interface BuiltToolResult {
  readonly result: TextToolResult;
  /** The text block, exactly as sent. */
  readonly text: string;
  /** o200k tokens of the text block. */
  readonly textTokens: number;
  /** o200k tokens of the compact `structuredContent`, 0 when there is none. */
  readonly structuredTokens: number;
}

/** One compact text block, optionally mirrored in `structuredContent`; counts what is sent. */
export function buildToolResult(value: unknown, options: BuildToolResultOptions = {}): BuiltToolResult {
  const format = options.format ?? 'json';
  const mode = options.mode ?? (format === 'json' && isPlainObject(value) ? 'mirror' : 'text-only');
  if (mode === 'mirror' && format !== 'json') {
    throw new McpctxError('INVALID_ARGUMENT', `Mirroring structuredContent needs the json format; ${format} is text only.`);
  }
  if (mode === 'mirror' && !isPlainObject(value)) {
    throw new McpctxError('INVALID_ARGUMENT', 'structuredContent must be a JSON object; wrap the value or use mode "text-only".');
  }
  const text = formatText(value, format);
  const textTokens = countTokens(text);
  const result: TextToolResult = { content: [{ type: 'text', text }] };
  if (mode === 'mirror') result.structuredContent = value as Record<string, unknown>;
  // In mirror mode the structured copy serializes to the very same compact text.
  return { result, text, textTokens, structuredTokens: mode === 'mirror' ? textTokens : 0 };
}

/** A tool error the model reads: `isError` with one text block. */
export function toolError(message: string): TextToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

/**
 * The tool error for a thrown McpctxError (a bad cursor, a changed source, a bad argument):
 * its message already says what to do. Anything else is rethrown.
 */
export function toolErrorFrom(error: unknown): TextToolResult {
  if (isMcpctxError(error)) return toolError(`${error.code}: ${error.message}`);
  throw error;
}

