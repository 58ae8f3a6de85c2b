import { McpctxError } from '../errors/index.js';
import { measureServer, type MeasureOptions, type Measurement } from './_measure.js';
import type { RecordStatus } from './_status.js';

/**
 * Capabilities the probe may declare: only what this client answers truthfully without a person
 * or a model (an empty root list, a declined elicitation). Sampling is left out on purpose:
 * declaring it claims the client can ask a model for a completion, and this harness cannot.
 */
export const PROBE_CAPABILITIES = Object.freeze(['roots', 'elicitation'] as const);
export type ProbeCapability = (typeof PROBE_CAPABILITIES)[number];

/** Why `sampling` is refused, in the words the CLI and the library both use. */
export const SAMPLING_PROBE_REFUSAL =
  'sampling cannot be probed: declaring it claims this client can ask a model for a completion, and mcpctx has no model to ask (a server that relied on it would be promised something false); probe roots or elicitation';

export interface ProbeOptions extends Omit<MeasureOptions, 'capabilities'> {
  /** Capabilities to probe, each declared alone against a capture that declares nothing. */
  probe: readonly string[];
}

/** One side of a comparison: what a measurement declaring `capabilities` gave. */
export interface ProbeSide {
  capabilities: Record<string, unknown>;
  status: RecordStatus;
  note: string;
  toolCount: number | null;
  totalTokens: number | null;
  canonicalSha256: string | null;
}

/** A tool whose presence or cost differs between the two declarations. */
export interface ToolDifference {
  name: string;
  change: 'added' | 'removed' | 'tokens';
  /** Its tokens when nothing is declared; null when it was not listed then. */
  tokensWithout: number | null;
  /** Its tokens with the capability declared; null when it was not listed then. */
  tokensWith: number | null;
}

export interface CapabilityProbeResult {
  capability: ProbeCapability;
  declared: ProbeSide;
  statusChanged: boolean;
  /** Added and changed tools in the probed catalog's order, then removed ones in the baseline's order. */
  tools: ToolDifference[];
  /** Total tokens with the capability minus without; null when either side has no number. */
  tokenDelta: number | null;
}

/** What `probeCapabilities` returns (method capability-probe/v1). */
export interface CapabilityProbe {
  method: typeof PROBE_METHOD;
  name: string;
  baseline: ProbeSide;
  probes: CapabilityProbeResult[];
}

export const PROBE_METHOD = 'capability-probe/v1';

/** The probe list checked: known names only, sampling refused with its reason, duplicates dropped. */
export function checkProbeCapabilities(names: readonly string[]): ProbeCapability[] {
  if (names.length === 0) throw new McpctxError('USAGE', `name a capability to probe: ${PROBE_CAPABILITIES.join(', ')}`);
  const checked: ProbeCapability[] = [];
  for (const name of names) {
    if (name === 'sampling') throw new McpctxError('USAGE', SAMPLING_PROBE_REFUSAL, { capability: name });
    if (!(PROBE_CAPABILITIES as readonly string[]).includes(name)) {
      throw new McpctxError('USAGE', `unknown capability to probe "${name}"; choose from ${PROBE_CAPABILITIES.join(', ')}`, { capability: name });
    }
    if (!checked.includes(name as ProbeCapability)) checked.push(name as ProbeCapability);
  }
  return checked;
}

/**
 * Measures the server declaring nothing (the published posture), then once per probed capability
 * declaring that one alone, everything else identical, and reports per tool what changed. The
 * client answers what it declares truthfully: roots/list with no roots, elicitation/create declined.
 */
export async function probeCapabilities(options: ProbeOptions): Promise<CapabilityProbe> {
  const { probe, ...measureOptions } = options;
  const capabilities = checkProbeCapabilities(probe);
  const baseline = await measureServer({ ...measureOptions, capabilities: [] });
  const probes: CapabilityProbeResult[] = [];
  for (const capability of capabilities) {
    const declared = await measureServer({ ...measureOptions, capabilities: [capability] });
    probes.push({
      capability,
      declared: sideOf(declared),
      statusChanged: declared.status !== baseline.status,
      tools: toolDifferences(baseline, declared),
      tokenDelta: baseline.totalTokens === null || declared.totalTokens === null ? null : declared.totalTokens - baseline.totalTokens,
    });
  }
  return { method: PROBE_METHOD, name: options.name, baseline: sideOf(baseline), probes };
}

function sideOf(measurement: Measurement): ProbeSide {
  return {
    capabilities: measurement.clientCapabilities,
    status: measurement.status,
    note: measurement.note,
    toolCount: measurement.toolCount,
    totalTokens: measurement.totalTokens,
    canonicalSha256: measurement.canonicalSha256,
  };
}

/**
 * Tools are matched by name, the n-th tool of a name with the n-th of the same name on the other
 * side (a catalog may repeat a name); a side without a catalog lists nothing.
 */
export function toolDifferences(without: Pick<Measurement, 'perTool'>, withCapability: Pick<Measurement, 'perTool'>): ToolDifference[] {
  const before = byName(without.perTool ?? []);
  const seen = new Map<string, number>();
  const differences: ToolDifference[] = [];
  for (const tool of withCapability.perTool ?? []) {
    const nth = seen.get(tool.name) ?? 0;
    seen.set(tool.name, nth + 1);
    const previous = before.get(tool.name)?.[nth];
    if (previous === undefined) differences.push({ name: tool.name, change: 'added', tokensWithout: null, tokensWith: tool.tokens });
    else if (previous !== tool.tokens) differences.push({ name: tool.name, change: 'tokens', tokensWithout: previous, tokensWith: tool.tokens });
  }
  for (const [name, tokens] of before) {
    for (const lost of tokens.slice(seen.get(name) ?? 0)) differences.push({ name, change: 'removed', tokensWithout: lost, tokensWith: null });
  }
  return differences;
}

function byName(tools: ReadonlyArray<{ name: string; tokens: number }>): Map<string, number[]> {
  const map = new Map<string, number[]>();
  for (const tool of tools) {
    const list = map.get(tool.name);
    if (list) list.push(tool.tokens);
    else map.set(tool.name, [tool.tokens]);
  }
  return map;
}
