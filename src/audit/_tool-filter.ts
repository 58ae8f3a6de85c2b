/**
 * A client's per-server tool filter applied to a measured catalog: the session pays only for the
 * tools it keeps. Semantics from Gemini CLI's `isEnabled` (packages/core/src/tools/mcp-client.ts at
 * google-gemini/gemini-cli 5411f11, read 2026-12-05), which Codex CLI's enabled/disabled lists
 * share: an excluded name removes the tool whatever the allow list says; with an allow list, a tool
 * stays only when an item equals its name (or, Gemini's form, starts with `<name>(`).
 */
import type { Measurement } from '../measure/index.js';
import type { ToolFilter } from './_types.js';

export interface FilteredCatalog {
  keptTools: number;
  ofTools: number;
  /** Tokens of the kept tools, each counted as its own definition (`perTool`). */
  tokens: number;
  /** "3 of 12 tools (includeTools/excludeTools)", with the keys as the client spells them: for a row. */
  note: string;
}

export function keepsTool(filter: ToolFilter, name: string): boolean {
  if (filter.exclude?.includes(name) === true) return false;
  return filter.include === undefined || filter.include.some((item) => item === name || item.startsWith(`${name}(`));
}

/**
 * The catalog as filtered, or undefined when the measurement has no per-tool split to filter. When
 * every tool is kept the whole catalog's figure stands (the per-tool sum leaves out the array's own
 * brackets and commas).
 */
export function filteredCatalog(filter: ToolFilter, measurement: Measurement, totalTokens: number): FilteredCatalog | undefined {
  const perTool = measurement.perTool;
  if (perTool === null || perTool === undefined) return undefined;
  const kept = perTool.filter((tool) => keepsTool(filter, tool.name));
  const tokens = kept.length === perTool.length ? totalTokens : kept.reduce((sum, tool) => sum + tool.tokens, 0);
  return { keptTools: kept.length, ofTools: perTool.length, tokens, note: `${kept.length} of ${perTool.length} tools (${filter.keys})` };
}
