/**
 * `--suggest RESULTS`: descriptions that are unusually long against the measured set's
 * distribution (`tool-shape.json`). Only descriptions draw advice: a schema is what the tool can
 * do, a description is prose every request carries. A suggestion fires at or above the 90th
 * percentile, names the percentile, and its recovery figure (description minus the measured
 * median) is approximate: a rewritten description tokenizes as itself.
 */
import type { ToolCost } from '../measure/index.js';
import type { ToolShape } from '../results/index.js';

export const SUGGEST_AT_PERCENTILE = 90;
const MEDIAN = 50;

export interface DescriptionSuggestion {
  server: string;
  tool: string;
  descriptionTokens: number;
  /** The highest percentile p (0-100) whose point is at or below the description's tokens. */
  percentile: number;
  /** Description tokens above the measured median: approximate. */
  approxRecovery: number;
}

export interface SuggestReport {
  /** The baseline's size, so the percentiles can be weighed. */
  baseline: { servers: number; tools: number; p90: number; median: number };
  suggestions: DescriptionSuggestion[];
  /** Tools looked at. */
  toolsChecked: number;
}

/** The percentile of `value` in a 101-point nearest-rank table: the last point at or below it (0 when below every point). */
export function percentileOf(points: readonly number[], value: number): number {
  let percentile = 0;
  for (let p = 0; p < points.length; p++) if ((points[p] ?? Infinity) <= value) percentile = p;
  return percentile;
}

export function suggestDescriptions(servers: ReadonlyArray<{ name: string; perTool: readonly ToolCost[] }>, shape: ToolShape): SuggestReport {
  const points = shape.quantiles.description;
  const p90 = points[SUGGEST_AT_PERCENTILE] ?? Infinity;
  const median = points[MEDIAN] ?? 0;
  const suggestions: DescriptionSuggestion[] = [];
  let toolsChecked = 0;
  for (const server of servers) {
    for (const tool of server.perTool) {
      toolsChecked += 1;
      if (points.length === 0 || tool.descriptionTokens < p90) continue;
      suggestions.push({
        server: server.name,
        tool: tool.name,
        descriptionTokens: tool.descriptionTokens,
        percentile: percentileOf(points, tool.descriptionTokens),
        approxRecovery: Math.max(0, tool.descriptionTokens - median),
      });
    }
  }
  suggestions.sort((a, b) => b.descriptionTokens - a.descriptionTokens || (a.server < b.server ? -1 : a.server > b.server ? 1 : 0));
  return { baseline: { servers: shape.servers, tools: shape.tools, p90: points.length === 0 ? 0 : p90, median }, suggestions, toolsChecked };
}
