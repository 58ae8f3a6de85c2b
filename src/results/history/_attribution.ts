import type { ToolTokens } from '../_model.js';

/**
 * One tool's part of a movement: added (before null), removed (after null) or changed, split by
 * field. `outputSchemaDelta` and `restDelta` are null when a side's vector was written before
 * output schemas were kept: that split is unknown there, never guessed.
 */
export interface ToolDelta {
  /** The tool's name; a name a catalog repeats is told apart as `name #2`, `name #3`. */
  name: string;
  tokensBefore: number | null;
  tokensAfter: number | null;
  delta: number;
  descriptionDelta: number;
  inputSchemaDelta: number;
  outputSchemaDelta: number | null;
  /** The name and everything else of the tool: its tokens less the three fields above. */
  restDelta: number | null;
}

/** A part of a movement split by field; output schema and the rest null where a side does not record the output schema. */
export interface FieldSplit {
  delta: number;
  description: number;
  inputSchema: number;
  outputSchema: number | null;
  rest: number | null;
}

/** Per-tool attribution from the two captures' tool vectors; each list sorted by size, then name. */
export interface ToolAttribution {
  added: ToolDelta[];
  removed: ToolDelta[];
  changed: ToolDelta[];
  /** The sums: tools added, tools removed, and tools on both sides (by field). */
  addedTokens: number;
  removedTokens: number;
  existing: FieldSplit;
  /** What belongs to no single tool (the list's brackets and commas, token boundaries): published, never spread. */
  unattributed: number;
  /** Which side's vector predates output schemas (its output schema split is unavailable); null when both record it. */
  outputSchemaUnrecorded: 'before' | 'after' | 'both' | null;
}

export function attribute(before: readonly ToolTokens[], after: readonly ToolTokens[], delta: number): ToolAttribution {
  const old = byKey(before);
  const now = byKey(after);
  const added: ToolDelta[] = [];
  const removed: ToolDelta[] = [];
  const changed: ToolDelta[] = [];
  for (const [key, { name, tool }] of now) {
    const was = old.get(key)?.tool;
    if (was === undefined) added.push(toolDelta(name, undefined, tool));
    else if (was.tokens !== tool.tokens) changed.push(toolDelta(name, was, tool));
  }
  for (const [key, { name, tool }] of old) if (!now.has(key)) removed.push(toolDelta(name, tool, undefined));
  const sum = (deltas: readonly ToolDelta[]): number => deltas.reduce((total, part) => total + part.delta, 0);
  const beforeKnown = before.every((tool) => tool.outputSchemaTokens !== undefined);
  const afterKnown = after.every((tool) => tool.outputSchemaTokens !== undefined);
  return {
    added: sorted(added),
    removed: sorted(removed),
    changed: sorted(changed),
    addedTokens: sum(added),
    removedTokens: sum(removed),
    existing: splitOf(changed),
    unattributed: delta - sum(added) - sum(removed) - sum(changed),
    outputSchemaUnrecorded: beforeKnown && afterKnown ? null : !beforeKnown && !afterKnown ? 'both' : beforeKnown ? 'after' : 'before',
  };
}

function splitOf(deltas: readonly ToolDelta[]): FieldSplit {
  let outputSchema: number | null = 0;
  let rest: number | null = 0;
  for (const part of deltas) {
    outputSchema = outputSchema === null || part.outputSchemaDelta === null ? null : outputSchema + part.outputSchemaDelta;
    rest = rest === null || part.restDelta === null ? null : rest + part.restDelta;
  }
  return {
    delta: deltas.reduce((total, part) => total + part.delta, 0),
    description: deltas.reduce((total, part) => total + part.descriptionDelta, 0),
    inputSchema: deltas.reduce((total, part) => total + part.inputSchemaDelta, 0),
    outputSchema,
    rest,
  };
}

/**
 * Tools keyed by name and occurrence, so a repeated name pairs the same way on both sides; the
 * key is JSON of the pair, which no name can forge, and the shown name numbers the repeats.
 */
function byKey(tools: readonly ToolTokens[]): Map<string, { name: string; tool: ToolTokens }> {
  const keyed = new Map<string, { name: string; tool: ToolTokens }>();
  const seen = new Map<string, number>();
  for (const tool of tools) {
    const occurrence = (seen.get(tool.name) ?? 0) + 1;
    seen.set(tool.name, occurrence);
    keyed.set(JSON.stringify([tool.name, occurrence]), { name: occurrence === 1 ? tool.name : `${tool.name} #${occurrence}`, tool });
  }
  return keyed;
}

/** A side that is absent counts 0 in every field; a side present without an output schema count makes that field (and the rest) unknown. */
function toolDelta(name: string, before: ToolTokens | undefined, after: ToolTokens | undefined): ToolDelta {
  const output = (tool: ToolTokens | undefined): number | undefined => (tool === undefined ? 0 : tool.outputSchemaTokens);
  const rest = (tool: ToolTokens | undefined): number | undefined => {
    const schema = output(tool);
    return tool === undefined ? 0 : schema === undefined ? undefined : tool.tokens - tool.descriptionTokens - tool.inputSchemaTokens - schema;
  };
  const difference = (a: number | undefined, b: number | undefined): number | null => (a === undefined || b === undefined ? null : b - a);
  return {
    name,
    tokensBefore: before?.tokens ?? null,
    tokensAfter: after?.tokens ?? null,
    delta: (after?.tokens ?? 0) - (before?.tokens ?? 0),
    descriptionDelta: (after?.descriptionTokens ?? 0) - (before?.descriptionTokens ?? 0),
    inputSchemaDelta: (after?.inputSchemaTokens ?? 0) - (before?.inputSchemaTokens ?? 0),
    outputSchemaDelta: difference(output(before), output(after)),
    restDelta: difference(rest(before), rest(after)),
  };
}

function sorted(deltas: ToolDelta[]): ToolDelta[] {
  return deltas.sort((a, b) => Math.abs(b.delta) - Math.abs(a.delta) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * The mechanism line from the attribution: each part of the change with where it came from, so
 * growth mostly in existing tools is never told as "more tools" (`+190: +66 from 1 new tool, +124
 * from existing tools (description +124)`).
 */
export function attributionSummary(delta: number, parts: ToolAttribution): string {
  const said: string[] = [];
  if (parts.added.length > 0) said.push(`${signed(parts.addedTokens)} from ${plural(parts.added.length, 'new tool')}`);
  if (parts.removed.length > 0) said.push(`${signed(parts.removedTokens)} from ${plural(parts.removed.length, 'removed tool')}`);
  if (parts.changed.length > 0) said.push(`${signed(parts.existing.delta)} from existing tools (${fieldsText(parts.existing, parts.outputSchemaUnrecorded)})`);
  if (parts.unattributed !== 0) said.push(`${signed(parts.unattributed)} unattributed`);
  return `${signed(delta)}: ${said.length === 0 ? "no tool's token count changed" : said.join(', ')}`;
}

/** The fields that moved; the output schema said unavailable, naming the side, where a vector predates it. */
export function fieldsText(split: Omit<FieldSplit, 'delta'>, unrecorded: ToolAttribution['outputSchemaUnrecorded']): string {
  const fields: string[] = [];
  if (split.description !== 0) fields.push(`description ${signed(split.description)}`);
  if (split.inputSchema !== 0) fields.push(`input schema ${signed(split.inputSchema)}`);
  if (split.outputSchema === null || split.rest === null) {
    const side = unrecorded === 'both' ? 'either capture' : `the ${unrecorded === 'after' ? 'later' : 'earlier'} capture`;
    fields.push(`output schema and the rest unavailable (not recorded for ${side})`);
  } else {
    if (split.outputSchema !== 0) fields.push(`output schema ${signed(split.outputSchema)}`);
    if (split.rest !== 0) fields.push(`name and the rest ${signed(split.rest)}`);
  }
  return fields.length === 0 ? 'no field moved' : fields.join(', ');
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

export function signed(value: number): string {
  return value > 0 ? `+${value.toLocaleString('en-US')}` : value < 0 ? `-${(-value).toLocaleString('en-US')}` : '0';
}
