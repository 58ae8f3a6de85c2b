import { printableText } from '../../text/index.js';
import type { PublishedStatus, ResultsState } from '../_model.js';
import { fieldsText, type ToolAttribution, type ToolDelta } from './_attribution.js';
import { conditionsText } from './_conditions.js';
import {
  COST_REGRESSION_METHOD,
  EMPHASIS_MIN_SHARE,
  EMPHASIS_MIN_TOKENS,
  compareFalls,
  compareMovements,
  compareText,
  costReadings,
  costReport,
  type CostMovement,
  type CostFall,
  type CostReading,
  type CostReturn,
} from './_movement.js';

export const REGRESSIONS_FILE = 'regressions.md';
/** The same report as data (`costReport`), for pages that render it; the same state gives the same bytes. */
export const REGRESSIONS_JSON_FILE = 'regressions.json';

export function regressionsJson(state: ResultsState): string {
  return `${JSON.stringify(costReport(state), null, 2)}\n`;
}

type Fell = Extract<CostReading, { kind: 'fell' }>;
type Moved = Extract<CostReading, { kind: 'moved' }>;
type Held = Extract<CostReading, { kind: 'held' }>;
type NoPoint = Extract<CostReading, { kind: 'none' }>;

/**
 * `regressions.md`: servers that fell from a number to a failure (the worst movement, first),
 * every server's most recent movement (emphasised first, then by size), returns from a failure,
 * the servers whose cost has not moved, and those with nothing to compare. No generation time:
 * the same state gives the same bytes.
 */
export function regressionsMarkdown(state: ResultsState): string {
  const readings = costReadings(state);
  const fell = readings.filter((reading): reading is Fell => reading.kind === 'fell');
  fell.sort((a, b) => compareFalls(a.fall, b.fall));
  const returned = readings.flatMap((reading) => ((reading.kind === 'moved' || reading.kind === 'held') && reading.returned !== null ? [reading.returned] : []));
  returned.sort((a, b) => compareText(a.server, b.server));
  const moved = readings.filter((reading): reading is Moved => reading.kind === 'moved');
  moved.sort((a, b) => compareMovements(a.movement, b.movement));
  const held = readings.filter((reading): reading is Held => reading.kind === 'held');
  held.sort((a, b) => compareText(a.server.name, b.server.name));
  const none = readings.filter((reading): reading is NoPoint => reading.kind === 'none');
  none.sort((a, b) => compareText(a.server.name, b.server.name));

  const lines = [
    `# Cost movements (${COST_REGRESSION_METHOD})`,
    '',
    "For each server, the change that produced the cost it carries today (a server with no movement has held its cost since its first comparable measurement). The window runs from the last comparable measurement before the change to the first at today's cost; how long that cost has held is reported apart from it. Every sweep counts, two of one day included.",
    'Only measurements within the run of sweeps under the same isolation are compared, so a change of harness never reads as a change of server, and a failed sweep gives no point (a gap, never a drop to zero). A server whose newest sweeps failed after it had a number has fallen: the worst movement, listed first with its last number.',
    `A movement is **emphasised** when it is at least ${EMPHASIS_MIN_SHARE * 100}% and at least ${EMPHASIS_MIN_TOKENS} tokens; every comparable movement is listed either way.`,
    "Per-tool and per-field attribution (description, input schema, output schema, name and the rest) comes from the two captures' tool vectors; what belongs to no single tool is reported as unattributed, never spread over the tools. Without them the mechanism is read from the totals alone. A change of launch or of the server's reported version between the two sides is named.",
    '',
    '## Fell to a failure',
    '',
    ...fellTable(fell),
    '## Movements',
    '',
    ...movementTable(moved),
    ...moved.flatMap((reading) => movementDetail(reading.movement)),
    '## Returned from a failure',
    '',
    ...returnedTable(returned),
    '## No movement',
    '',
    ...heldTable(held),
    '## Nothing to compare',
    '',
    ...noneTable(none),
  ];
  return `${lines.join('\n').replace(/\n+$/, '')}\n`;
}

function fellTable(fell: readonly Fell[]): string[] {
  if (fell.length === 0) return ['None.', ''];
  return [
    '| server | last number | measured | failed since | status now | failed sweeps | notes |',
    '|---|---:|---|---|---|---:|---|',
    ...fell.map(({ fall, cutByIsolation }) =>
      cells([
        `**${markdownText(fall.server)}**`,
        `${count(fall.last.tokens)} (${count(fall.last.tools)} tools)`,
        fall.last.date,
        `${fall.failed.date} (${fall.failed.status})`,
        `**${fall.latest.status}**`,
        String(fall.failures),
        fallNotes(fall, cutByIsolation),
      ]),
    ),
    '',
  ];
}

function fallNotes(fall: CostFall, cutByIsolation: boolean): string {
  const said: string[] = [];
  const conditions = fall.conditions === 'unavailable' ? '' : conditionsText(fall.conditions);
  if (conditions !== '') said.push(markdownText(conditions));
  if (cutByIsolation) said.push('earlier sweeps under another isolation left out');
  return said.join('; ');
}

function returnedTable(returned: readonly CostReturn[]): string[] {
  if (returned.length === 0) return ['None.', ''];
  return [
    '| server | before the failure | failed | failed sweeps | returned | tokens on return |',
    '|---|---:|---|---:|---|---:|',
    ...returned.map((item) =>
      cells([
        markdownText(item.server),
        item.before === null ? 'no number' : `${count(item.before.tokens)} (${item.before.date})`,
        `${item.failed.date} (${item.failed.status})`,
        String(item.failures),
        item.returned.date,
        count(item.returned.tokens),
      ]),
    ),
    '',
  ];
}

function movementTable(moved: readonly Moved[]): string[] {
  if (moved.length === 0) return ['No server has moved.', ''];
  return [
    '| server | window | tokens | change | tools | mechanism | held | notes |',
    '|---|---|---:|---:|---:|---|---|---|',
    ...moved.map(({ movement, server, cutByIsolation }) => {
      const name = markdownText(movement.server);
      return cells([
        movement.emphasised ? `**${name}**` : name,
        `${movement.from.date} → ${movement.to.date}`,
        `${count(movement.from.tokens)} → ${count(movement.to.tokens)}`,
        movement.emphasised ? `**${change(movement)}**` : change(movement),
        `${count(movement.from.tools)} → ${count(movement.to.tools)}`,
        movement.mechanism,
        heldText(movement.to.date, movement.heldFor, movement.latest),
        [notes(server.status, cutByIsolation), movementConditions(movement)].filter((part) => part !== '').join('; '),
      ]);
    }),
    '',
  ];
}

function movementDetail(movement: CostMovement): string[] {
  const heading = `### ${markdownText(movement.server)}: ${change(movement)} tokens, ${movement.mechanism}`;
  const window = `Window ${movement.from.date} → ${movement.to.date} (capture ${shortHash(movement.from.canonicalSha256)} → ${shortHash(movement.to.canonicalSha256)}), measured under ${movement.isolation ?? 'an isolation not on record'}; ${heldText(movement.to.date, movement.heldFor, movement.latest)}.`;
  const conditions = movementConditions(movement);
  const context = [`Mechanism: ${markdownText(movement.summary)}.`, ...(conditions === '' ? [] : [`${conditions.charAt(0).toUpperCase()}${conditions.slice(1)}.`])];
  const attribution = movement.attribution;
  if (attribution === 'unavailable') {
    return [heading, '', window, '', ...context, '', `Per-tool breakdown unavailable: ${movement.unavailableBecause ?? 'no tool vectors'}.`, ''];
  }
  const parts = [
    ...attribution.added.map((tool) => toolLine('added', tool, attribution.outputSchemaUnrecorded)),
    ...attribution.removed.map((tool) => toolLine('removed', tool, attribution.outputSchemaUnrecorded)),
    ...attribution.changed.map((tool) => toolLine('changed', tool, attribution.outputSchemaUnrecorded)),
    `- unattributed: ${signed(attribution.unattributed)} tokens`,
  ];
  return [heading, '', window, '', ...context, '', ...parts, ''];
}

/** Launch and version changes, in markdown; '' when neither changed or neither side has them on record. */
function movementConditions(movement: CostMovement): string {
  return movement.conditions === 'unavailable' ? '' : markdownText(conditionsText(movement.conditions));
}

function toolLine(kind: 'added' | 'removed' | 'changed', tool: ToolDelta, unrecorded: ToolAttribution['outputSchemaUnrecorded']): string {
  const sides = kind === 'changed' ? ` (${count(tool.tokensBefore)} → ${count(tool.tokensAfter)})` : '';
  const fields = `description ${signed(tool.descriptionDelta)}, input schema ${signed(tool.inputSchemaDelta)}`;
  const rest =
    tool.outputSchemaDelta === null || tool.restDelta === null
      ? fieldsText({ description: 0, inputSchema: 0, outputSchema: null, rest: null }, unrecorded)
      : `output schema ${signed(tool.outputSchemaDelta)}, name and the rest ${signed(tool.restDelta)}`;
  return `- ${kind} ${markdownText(tool.name)}: ${signed(tool.delta)} tokens${sides}; ${fields}, ${rest}`;
}

function heldTable(held: readonly Held[]): string[] {
  if (held.length === 0) return ['None.', ''];
  return [
    '| server | tokens | tools | held since | measurements | notes |',
    '|---|---:|---:|---|---:|---|',
    ...held.map((reading) =>
      cells([
        markdownText(reading.server.name),
        count(reading.point.tokens),
        count(reading.point.tools),
        reading.point.date,
        reading.heldFor === 1 ? '1' : `${reading.heldFor} (latest ${reading.latest})`,
        notes(reading.server.status, reading.cutByIsolation),
      ]),
    ),
    '',
  ];
}

function noneTable(none: readonly NoPoint[]): string[] {
  if (none.length === 0) return ['None.', ''];
  return [
    '| server | status |',
    '|---|---|',
    ...none.map((reading) => cells([markdownText(reading.server.name), `${reading.server.status}: no comparable measurement`])),
    '',
  ];
}

function heldText(since: string, measurements: number, latest: string): string {
  return measurements === 1 ? `since ${since} (1 measurement)` : `since ${since} (${measurements} measurements, latest ${latest})`;
}

function notes(status: PublishedStatus, cutByIsolation: boolean): string {
  const said: string[] = [];
  if (status !== 'measured' && status !== 'dynamic') said.push(`currently ${status}`);
  if (cutByIsolation) said.push('earlier sweeps under another isolation left out');
  return said.join('; ');
}

function change(movement: CostMovement): string {
  const share = movement.share === null ? 'from 0' : `${movement.share < 0 ? '-' : '+'}${(Math.abs(movement.share) * 100).toFixed(1)}%`;
  return `${signed(movement.delta)} (${share})`;
}

function signed(value: number): string {
  return value > 0 ? `+${count(value)}` : value < 0 ? `-${count(-value)}` : '0';
}

function count(value: number | null): string {
  return value === null ? 'n/a' : value.toLocaleString('en-US');
}

function shortHash(sha: string | null): string {
  return sha === null ? 'hash not on record' : sha.slice(0, 12);
}

function cells(values: readonly string[]): string {
  return `| ${values.join(' | ')} |`;
}

/** Names come from servers files and servers: one printable line, markdown and HTML taken literally. */
export function markdownText(text: string): string {
  return printableText(text, 'note').replace(/[\\`*_[\]|<>~&#!]/g, '\\$&');
}
