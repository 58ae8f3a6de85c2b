import { isPlainObject } from '../json/index.js';

/**
 * How a host hands over an MCP tool result, so that the shaped one goes back in the same form:
 * - `result`: the CallToolResult object (`{content, structuredContent?, isError?}`);
 * - `content`: its content blocks alone;
 * - `text`: the result's text, as one string;
 * - `wrapped`: `{"result": ...}`, how the Claude Agent SDK hands a structured result;
 * - `host-notice`: the host's own size limit fired first and put a notice in the result's place;
 * - `unknown`: none of these (a number, another object): passed through.
 * `encoded`: the host gave it as a JSON string (`"[{\"type\":\"text\",...}]"`), and gets the shaped text back.
 */
export type HostForm = 'result' | 'content' | 'text' | 'wrapped' | 'host-notice' | 'unknown';

export interface ReadOutput {
  readonly form: HostForm;
  readonly encoded: boolean;
  /** The result as a CallToolResult, for the shaper; absent for `host-notice` and `unknown`. */
  readonly result?: Record<string, unknown>;
  readonly notice?: HostNotice;
}

/** A host's own notice that it did not hand the result over (its limit fired before any hook). */
export interface HostNotice {
  readonly host: string;
  /** The notice as the host wrote it. */
  readonly text: string;
  /** Where the host saved the result, when it says. */
  readonly file?: string;
  /** The result's size as the host states it. */
  readonly characters?: number;
  readonly tokens?: number;
}

/** Longest notice looked at: a host's notice is a paragraph (Claude Code 2.1.336: ~2,000 characters with its jq hints), never a result. */
const MAX_NOTICE_CHARS = 16_384;

/**
 * Claude Code's notices (seed 001 and its docs): the result saved to a file when it is over
 * MAX_MCP_OUTPUT_TOKENS ("Error: result (694,797 characters) exceeds maximum allowed tokens.
 * Output has been saved to /path..."), and the older refusal without a file ("MCP tool "x"
 * response (31,000 tokens) exceeds maximum allowed tokens (25000)...").
 */
const NOTICES: ReadonlyArray<{ host: string; pattern: RegExp }> = [
  { host: 'claude-code', pattern: /^Error: result \((?<characters>[\d,]+) characters\) exceeds maximum allowed tokens\. Output has been saved to (?<file>\S+?)\.?(?:\s|$)/ },
  { host: 'claude-code', pattern: /^MCP tool "[^"\n]*" response \((?<tokens>[\d,]+) tokens\) exceeds maximum allowed tokens/ },
  { host: 'claude-code', pattern: /^Error: [^\n]{0,200}exceeds maximum allowed tokens/ },
];

/** The host's notice in `text`, when it is one. */
export function hostNotice(text: string): HostNotice | undefined {
  if (text.length > MAX_NOTICE_CHARS) return undefined;
  for (const { host, pattern } of NOTICES) {
    const match = pattern.exec(text);
    if (match === null) continue;
    const groups = match.groups ?? {};
    const number = (value: string | undefined): number | undefined => (value === undefined ? undefined : Number(value.replace(/,/g, '')));
    const characters = number(groups.characters);
    const tokens = number(groups.tokens);
    return { host, text, ...(groups.file === undefined ? {} : { file: groups.file }), ...(characters === undefined ? {} : { characters }), ...(tokens === undefined ? {} : { tokens }) };
  }
  return undefined;
}

/** What a host handed over, read as a CallToolResult where it is one. */
export function readHostOutput(value: unknown): ReadOutput {
  if (typeof value === 'string') return readString(value);
  const read = readValue(value);
  return read ?? { form: 'unknown', encoded: false };
}

/**
 * How JSON text opens when it can be a result, its content blocks or the `{"result": ...}` wrapper.
 * Only such text is parsed here: any other JSON (a tool's own payload, which the shaper reads
 * itself) would be parsed twice, and parsing a large text holds the host's event loop.
 */
const MAY_BE_A_RESULT = /^\s*(?:\{\s*"(?:result|content|structuredContent|isError|_meta)"\s*:|\[\s*(?:\]|\{\s*"(?:type|text|data|mimeType|resource|annotations|_meta)"\s*:))/;

function readString(text: string): ReadOutput {
  const notice = hostNotice(text);
  if (notice !== undefined) return { form: 'host-notice', encoded: false, notice };
  if (MAY_BE_A_RESULT.test(text)) {
    const parsed = parseJson(text);
    const read = parsed.ok ? readValue(parsed.value) : undefined;
    if (read !== undefined) return { ...read, encoded: true };
  }
  return { form: 'text', encoded: false, result: textResult(text) };
}

function readValue(value: unknown): ReadOutput | undefined {
  if (Array.isArray(value)) return isContent(value) ? { form: 'content', encoded: false, result: { content: value } } : undefined;
  if (!isPlainObject(value)) return undefined;
  if (Array.isArray(value.content) && isContent(value.content)) return { form: 'result', encoded: false, result: value };
  const keys = Object.keys(value);
  if (keys.length === 1 && keys[0] === 'result') {
    const inner = value.result;
    if (typeof inner === 'string') {
      const notice = hostNotice(inner);
      if (notice !== undefined) return { form: 'host-notice', encoded: false, notice };
      return { form: 'wrapped', encoded: false, result: textResult(inner) };
    }
    // A structured value: the text the model would read is its JSON.
    return { form: 'wrapped', encoded: false, result: textResult(JSON.stringify(inner) ?? 'null') };
  }
  return undefined;
}

/** Content blocks: a list of objects each with a string `type` (an empty list is one too). */
function isContent(list: readonly unknown[]): boolean {
  return list.every((block) => isPlainObject(block) && typeof block.type === 'string');
}

function textResult(text: string): Record<string, unknown> {
  return { content: [{ type: 'text', text }] };
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    // JSON.parse makes "__proto__" an own key, never a prototype; nesting past the stack throws.
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

/** The text blocks of a result joined by blank lines: what a host that takes text gives the model. */
export function resultText(result: Record<string, unknown>): string {
  const content = Array.isArray(result.content) ? result.content : [];
  return content
    .filter((block): block is { type: 'text'; text: string } => isPlainObject(block) && block.type === 'text' && typeof block.text === 'string')
    .map((block) => block.text)
    .join('\n\n');
}

/**
 * The shaped result in the form the host handed over. A host that gave a string takes a string
 * back and gives it to the model as text, so it gets the shaped text itself, never the content
 * blocks re-encoded (their escapes would cost tokens the cap did not count).
 */
export function writeHostOutput(read: ReadOutput, shaped: Record<string, unknown>): unknown {
  if (read.encoded) return resultText(shaped);
  switch (read.form) {
    case 'result':
      return shaped;
    case 'content':
      return Array.isArray(shaped.content) ? shaped.content : [];
    default:
      return resultText(shaped);
  }
}
