import { printableText } from '../../text/index.js';
import type { PublishedStatus, ResultsState } from '../_model.js';
import {
  COST_REGRESSION_METHOD,
  EMPHASIS_MIN_SHARE,
  EMPHASIS_MIN_TOKENS,
  compareMovements,
  compareText,
  costReadings,
  type CostMovement,
  type CostReading,
  type ToolDelta,
} from './_movement.js';

export const REGRESSIONS_FILE = 'regressions.md';

type Moved = Extract<CostReading, { kind: 'moved' }>;
type Held = Extract<CostReading, { kind: 'held' }>;
type NoPoint = Extract<CostReading, { kind: 'none' }>;

/**
 * `regressions.md`: every server's most recent movement (emphasised first, then by size), the
 * servers whose cost has not moved, and those with nothing to compare. No generation time: the
 * same state gives the same bytes.
 */
export function regressionsMarkdown(state: ResultsState): string {
  const readings = costReadings(state);
  const moved = readings.filter((reading): reading is Moved => reading.kind === 'moved');
  moved.sort((a, b) => compareMovements(a.movement, b.movement));
  const held = readings.filter((reading): reading is Held => reading.kind === 'held');
  held.sort((a, b) => compareText(a.server.name, b.server.name));
  const none = readings.filter((reading): reading is NoPoint => reading.kind === 'none');
  none.sort((a, b) => compareText(a.server.name, b.server.name));

  const lines = [
    `# Cost movements (${COST_REGRESSION_METHOD})`,
    '',
    "For each server, the change that produced the cost it carries today (a server with no movement has held its cost since its first comparable measurement). The window runs from the last comparable measurement before the change to the first at today's cost; how long that cost has held is reported apart from it.",
    'Only measurements within the run of sweeps under the same isolation are compared, so a change of harness never reads as a change of server, and a failed sweep gives no point (a gap, never a drop to zero).',
    `A movement is **emphasised** when it is at least ${EMPHASIS_MIN_SHARE * 100}% and at least ${EMPHASIS_MIN_TOKENS} tokens; every comparable movement is listed either way.`,
    "The mechanism is read from the totals alone. Per-tool attribution comes from the two captures' tool vectors; what belongs to no single tool is reported as unattributed, never spread over the tools.",
    '',
    '## Movements',
    '',
    ...movementTable(moved),
    ...moved.flatMap((reading) => movementDetail(reading.movement)),
    '## No movement',
    '',
    ...heldTable(held),
    '## Nothing to compare',
    '',
    ...noneTable(none),
  ];
  return `${lines.join('\n').replace(/\n+$/, '')}\n`;
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
        notes(server.status, cutByIsolation),
      ]);
    }),
    '',
  ];
}

function movementDetail(movement: CostMovement): string[] {
  const heading = `### ${markdownText(movement.server)}: ${change(movement)} tokens, ${movement.mechanism}`;
  const window = `Window ${movement.from.date} → ${movement.to.date} (capture ${shortHash(movement.from.canonicalSha256)} → ${shortHash(movement.to.canonicalSha256)}), measured under ${movement.isolation ?? 'an isolation not on record'}; ${heldText(movement.to.date, movement.heldFor, movement.latest)}.`;
  const attribution = movement.attribution;
  if (attribution === 'unavailable') {
    return [heading, '', window, '', `Per-tool breakdown unavailable: ${movement.unavailableBecause ?? 'no tool vectors'}.`, ''];
  }
  const parts = [
    ...attribution.added.map((tool) => toolLine('added', tool)),
    ...attribution.removed.map((tool) => toolLine('removed', tool)),
    ...attribution.changed.map((tool) => toolLine('changed', tool)),
    `- unattributed: ${signed(attribution.unattributed)} tokens`,
  ];
  return [heading, '', window, '', ...parts, ''];
}

function toolLine(kind: 'added' | 'removed' | 'changed', tool: ToolDelta): string {
  const sides = kind === 'changed' ? ` (${count(tool.tokensBefore)} → ${count(tool.tokensAfter)})` : '';
  return `- ${kind} ${markdownText(tool.name)}: ${signed(tool.delta)} tokens${sides}; description ${signed(tool.descriptionDelta)}, input schema ${signed(tool.inputSchemaDelta)}`;
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
