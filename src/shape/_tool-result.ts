import { randomBytes } from 'node:crypto';
import { McpctxError, isMcpctxError } from '../errors/index.js';
import { countTokens } from '../tokens/index.js';
import { isPlainObject } from '../json/index.js';
import { formatText, type TextFormat } from './_formats.js';
import { scrubErrorText } from './_scrub.js';

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

export interface ToolErrorOptions {
  /** The author's own scrubbing of the text the model reads, after the default one. */
  readonly redact?: (text: string) => string;
  /** Where an unexpected error's details go, under its error id; default one line on stderr (never stdout, the protocol channel). */
  readonly log?: (line: string) => void;
  /** The tool that failed, named in the log line. */
  readonly tool?: string;
}

/**
 * The tool error for a thrown error, safe to show a model. An McpctxError (a bad cursor, a changed
 * source, a bad argument) keeps its code and its message, which already says what to do, with
 * absolute paths and connection strings scrubbed. Anything else is a bug or an outage the model
 * cannot act on: it gets a generic message with a short error id, and the full error (message,
 * stack, cause) goes to the server's log under that id. `redact` runs last on the text either way.
 */
export function toolErrorFrom(error: unknown, options: ToolErrorOptions = {}): TextToolResult {
  const redact = options.redact ?? ((text: string) => text);
  if (isMcpctxError(error)) return toolError(redact(`${error.code}: ${scrubErrorText(error.message)}`));
  const errorId = randomBytes(4).toString('hex');
  const log = options.log ?? ((line: string) => console.error(line));
  log(`mcpctx: unexpected error ${errorId}${options.tool === undefined ? '' : ` in tool "${options.tool}"`}: ${describeError(error)}`);
  return toolError(
    redact(
      `INTERNAL_ERROR: the tool failed with an unexpected error (error id ${errorId}). ` +
        'Retrying may not help; report the error id to whoever runs this server, whose log has the details.',
    ),
  );
}

/** The whole error for a log: its stack (or message), then each cause (at most 5, no cycles). */
function describeError(error: unknown): string {
  const chain: unknown[] = [];
  for (let current: unknown = error; current !== undefined && !chain.includes(current) && chain.length < 6; ) {
    chain.push(current);
    current = current instanceof Error ? current.cause : undefined;
  }
  return chain.map((link) => (link instanceof Error ? (link.stack ?? `${link.name}: ${link.message}`) : String(link))).join('\ncaused by: ');
}
