/**
 * Claude divergence (method tools-delta/v1): what a server's tools add to an Anthropic request,
 * beside the o200k headline. The capture is projected onto the three fields an Anthropic tool
 * carries (name, description, input_schema); `count_tokens` is asked with that tools array and a
 * one-token user message, then without tools, and the difference is the tools' cost. Two effects
 * move it, in opposite directions, so both are recorded: the field-selection share (o200k of the
 * projection against the full capture: title, annotations, outputSchema... have nowhere to go in
 * an Anthropic request) and the tokenizer and framing (the rest of the gap). The count comes from
 * a caller-supplied counter, so measure needs no provider; the CLI wires Anthropic's count_tokens.
 */
import { McpctxError } from '../errors/index.js';
import { canonicalJson, countTokens } from '../tokens/index.js';
import { isPlainObject } from '../json/index.js';

export const CLAUDE_DIVERGENCE_METHOD = 'tools-delta/v1';

/** An Anthropic tool definition: the only three fields its tools array has room for. */
export interface AnthropicToolProjection {
  name: string;
  description?: string;
  input_schema: unknown;
}

/** The `claude` block of a measurement: present only when it was measured. */
export interface ClaudeDivergence {
  method: typeof CLAUDE_DIVERGENCE_METHOD;
  /** The model id count_tokens was asked for. */
  model: string;
  /** Tokens the tools add to a request: `withTools - withoutTools`. */
  claudeTokens: number;
  withTools: number;
  withoutTools: number;
  /** o200k tokens of JSON.stringify(projection): re-derivable from the capture. */
  projectedTokens: number;
  /** projectedTokens / totalTokens, 4 decimals: how much of the capture an Anthropic request can carry at all. */
  fieldSelectionShare: number;
  /** The capture this was computed from: a re-sweep with other bytes makes the block stale. */
  canonicalSha256: string;
  measuredAt: string;
}

/** Counts the input tokens of a minimal request with these tools (undefined: no tools at all). */
export type ClaudeTokenCounter = (tools: AnthropicToolProjection[] | undefined) => Promise<number>;

/** The projection of a captured catalog onto Anthropic's three tool fields, in server order. */
export function claudeProjection(capture: readonly unknown[]): AnthropicToolProjection[] {
  return capture.map((tool, index) => {
    if (!isPlainObject(tool) || typeof tool.name !== 'string') {
      throw new McpctxError('INVALID_ARGUMENT', `tool ${index} of the capture has no name: it cannot be sent as an Anthropic tool`, { index });
    }
    const projected: AnthropicToolProjection = { name: tool.name, input_schema: tool.inputSchema ?? { type: 'object' } };
    if (typeof tool.description === 'string') projected.description = tool.description;
    return projected;
  });
}

function round4(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}

/** The figures of the block that re-derive from the capture alone (verify checks these). */
export function projectionFigures(capture: readonly unknown[], totalTokens: number): { projectedTokens: number; fieldSelectionShare: number } {
  const projectedTokens = countTokens(canonicalJson(claudeProjection(capture)));
  return { projectedTokens, fieldSelectionShare: totalTokens > 0 ? round4(projectedTokens / totalTokens) : 0 };
}

export async function claudeDivergence(
  capture: readonly unknown[],
  figures: { totalTokens: number; canonicalSha256: string },
  model: string,
  count: ClaudeTokenCounter,
  now: () => Date = () => new Date(),
): Promise<ClaudeDivergence> {
  const projection = claudeProjection(capture);
  const withTools = await count(projection);
  const withoutTools = await count(undefined);
  return {
    method: CLAUDE_DIVERGENCE_METHOD,
    model,
    claudeTokens: withTools - withoutTools,
    withTools,
    withoutTools,
    ...projectionFigures(capture, figures.totalTokens),
    canonicalSha256: figures.canonicalSha256,
    measuredAt: now().toISOString(),
  };
}

/** What the claude block is made from, and where it is written: the fields of a measurement it reads. */
export interface DivergenceSubject {
  readonly rawToolsCapture: unknown[] | null;
  readonly totalTokens: number | null;
  readonly canonicalSha256: string | null;
  /** Set when the capture was redacted before recording. */
  readonly captureRedaction: unknown;
  claude?: ClaudeDivergence;
}

/** Why a measurement got no claude block, or that it got one. */
export type ClaudeBlockOutcome = 'added' | 'no-capture' | 'redacted';

/**
 * Adds the claude block to a measurement that has a capture to project (measured or dynamic). A
 * capture redacted before recording gets none: its projection would not be the server's bytes.
 * A failing count (the API's error) propagates and the measurement is left as it was.
 */
export async function addClaudeDivergence(measurement: DivergenceSubject, model: string, count: ClaudeTokenCounter): Promise<ClaudeBlockOutcome> {
  const { rawToolsCapture, totalTokens, canonicalSha256 } = measurement;
  if (rawToolsCapture === null || totalTokens === null || canonicalSha256 === null) return 'no-capture';
  if (measurement.captureRedaction !== null) return 'redacted';
  measurement.claude = await claudeDivergence(rawToolsCapture, { totalTokens, canonicalSha256 }, model, count);
  return 'added';
}
