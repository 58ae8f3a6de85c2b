import { join } from 'node:path';
import { McpctxError } from '../../errors/index.js';
import { isPlainObject } from '../../json/index.js';
import { parseResultsJson, readResultsText } from '../_read-file.js';
import type { ResultsState } from '../_model.js';

export const TOOL_SHAPE_FILE = 'tool-shape.json';
export const TOOL_SHAPE_METHOD = 'tool-shape/v1';
const DEFAULT_POINTS = 101;

/** `tool-shape.json`: where a tool's tokens fall among every tool of the measured set. */
export interface ToolShape {
  method: typeof TOOL_SHAPE_METHOD;
  /** Servers whose current record is measured or dynamic and contributed tools. */
  servers: number;
  /** Tools counted: every complete per-tool entry of those records. */
  tools: number;
  /** 101 points each, p0..p100, nearest rank; empty with no tools. */
  quantiles: { whole: number[]; description: number[]; inputSchema: number[] };
}

/**
 * The tool-shape baseline over every tool of every current measured or dynamic record. A per-tool
 * entry missing one of its three counts is incomplete and left out rather than read as zero.
 */
export function toolShape(state: ResultsState): ToolShape {
  const whole: number[] = [];
  const description: number[] = [];
  const inputSchema: number[] = [];
  let servers = 0;
  for (const server of state.servers) {
    if (server.status !== 'measured' && server.status !== 'dynamic') continue;
    const perTool: unknown = server.measurement?.perTool;
    if (!Array.isArray(perTool)) continue;
    let counted = 0;
    for (const tool of perTool as unknown[]) {
      const { tokens, descriptionTokens, inputSchemaTokens } = (tool ?? {}) as Record<string, unknown>;
      if (!isCount(tokens) || !isCount(descriptionTokens) || !isCount(inputSchemaTokens)) continue;
      whole.push(tokens);
      description.push(descriptionTokens);
      inputSchema.push(inputSchemaTokens);
      counted += 1;
    }
    if (counted > 0) servers += 1;
  }
  return {
    method: TOOL_SHAPE_METHOD,
    servers,
    tools: whole.length,
    quantiles: { whole: nearestRankQuantiles(whole), description: nearestRankQuantiles(description), inputSchema: nearestRankQuantiles(inputSchema) },
  };
}

/** `tool-shape.json`: two-space indent and a final newline. */
export function toolShapeJson(state: ResultsState): string {
  return `${JSON.stringify(toolShape(state), null, 2)}\n`;
}

/**
 * Nearest-rank quantiles at `points` evenly spaced levels from p0 to p100: the value at the
 * smallest rank r (1-based, ascending) with r >= q·n, rank 1 for p0. So p0 is the minimum, p100 the
 * maximum, and every point is a value of the input. An empty input has no quantiles: [].
 */
export function nearestRankQuantiles(values: readonly number[], points: number = DEFAULT_POINTS): number[] {
  if (!Number.isSafeInteger(points) || points < 2) {
    throw new McpctxError('USAGE', `points must be an integer of at least 2 (p0 and p100), got ${String(points)}`, { points });
  }
  const bad = values.find((value) => typeof value !== 'number' || !Number.isFinite(value));
  if (bad !== undefined) throw new McpctxError('USAGE', `quantiles need finite numbers, got ${String(bad)}`);
  if (values.length === 0) return [];
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  const steps = points - 1;
  // Integer arithmetic for the rank: i·n/steps is exact when it is whole, so ceil never rounds a
  // whole rank up because of a floating-point level like 0.07 · 100.
  return Array.from({ length: points }, (_, i) => sorted[Math.max(1, Math.ceil((i * n) / steps)) - 1] as number);
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/** `tool-shape.json` of a results folder, checked for its shape (INVALID_RESULTS naming the file otherwise). */
export async function readToolShape(dir: string): Promise<ToolShape> {
  const file = join(dir, TOOL_SHAPE_FILE);
  const value = parseResultsJson(await readResultsText(file, true), file);
  const quantiles = isPlainObject(value) ? value.quantiles : undefined;
  const valid =
    isPlainObject(value) &&
    value.method === TOOL_SHAPE_METHOD &&
    isCount(value.servers) &&
    isCount(value.tools) &&
    isPlainObject(quantiles) &&
    (['whole', 'description', 'inputSchema'] as const).every((metric) => {
      const points = quantiles[metric];
      return Array.isArray(points) && (points.length === 0 || points.length === DEFAULT_POINTS) && points.every(isCount);
    });
  if (!valid) throw new McpctxError('INVALID_RESULTS', `${file}: not a ${TOOL_SHAPE_METHOD} table (101 nearest-rank points per metric); rebuild results/ with mcpctx sweep`, { file });
  return value as unknown as ToolShape;
}
