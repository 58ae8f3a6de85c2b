import { plural } from '../../text/index.js';
import {
  COST_REGRESSION_METHOD,
  EMPHASIS_MIN_SHARE,
  EMPHASIS_MIN_TOKENS,
  conditionsText,
  costReport,
  type CostFall,
  type CostMovement,
  type CostReturn,
  type ToolDelta,
} from '../history/index.js';
import { statusClass, statusMeaning } from './_failure.js';
import { attr, clip, count, page, text } from './_html.js';
import type { SiteInput, SiteServer } from './_read.js';

// regressions.html: the cost report sweeps write as regressions.json (costReport), rendered: first
// the servers that had a number and now fail (the worst movement; a failed sweep is a gap in the
// cost series, never a drop to zero), then each most recent cost movement with its summary, what
// else changed (launch, folder, server version) and its per-tool, per-field attribution on demand,
// then the servers that came back from a failure.

export function regressionsPage(input: SiteInput, stamp: string): string {
  const report = costReport(input.state);
  const segments = new Map(input.servers.map((server) => [server.row.server, server.segment]));
  const statuses = new Map(input.servers.map((server) => [server.row.server, server.row]));
  const body = [
    '<h1>Regressions</h1>',
    `<p>What got worse, newest state first: servers that had a number and now fail, then each server's most recent cost movement (method <code>${text(COST_REGRESSION_METHOD)}</code>; only measurements under the same isolation are compared, and a failed sweep is a gap, never a drop to zero), then servers that measured again after failing. A movement is <strong>emphasised</strong> when it is at least ${EMPHASIS_MIN_SHARE * 100}% and at least ${EMPHASIS_MIN_TOKENS} tokens. The same report is in <code>regressions.md</code> and, as data, <code>regressions.json</code> of the results.</p>`,
    '<h2 id="failed-after-measured">Failing after a measurement</h2>',
    failedTable(report.fell, segments, statuses),
    `<h2 id="movements">Cost movements (${text(plural(report.movements.length, 'server'))})</h2>`,
    movementsTable(report.movements, segments),
    `<h2 id="returned">Measured again after failing (${text(plural(report.returned.length, 'server'))})</h2>`,
    returnedTable(report.returned, segments),
  ].join('\n');
  return page({ title: 'MCP server context cost: regressions', root: '', body, script: false, stamp });
}

function serverLink(name: string, segment: string | undefined): string {
  return segment === undefined ? text(name) : `<a href="servers/${attr(segment)}.html">${text(name)}</a>`;
}

function failedTable(fell: readonly CostFall[], segments: ReadonlyMap<string, string>, statuses: ReadonlyMap<string, SiteServer['row']>): string {
  if (fell.length === 0) return '<p>None: no server that had a number has failed since.</p>';
  const rows = fell.map((fall) => {
    const row = statuses.get(fall.server);
    const note = row === undefined || row.note === '' ? '' : ` <span class="why-note">${text(clip(row.note, 200))}</span>`;
    const conditions = conditionsText(fall.conditions);
    return [
      `<tr data-name="${attr(fall.server.toLowerCase())}">`,
      `<td class="name" data-label="Server">${serverLink(fall.server, segments.get(fall.server))}</td>`,
      `<td data-label="Now"><span class="status ${statusClass(fall.latest.status)}">${text(fall.latest.status)}</span> <span class="why">${text(statusMeaning(fall.latest.status))}</span>${note}</td>`,
      `<td data-label="Failing since">${text(fall.failed.date)}</td>`,
      `<td data-label="Last number">${count(fall.last.tokens)} tokens, ${count(fall.last.tools)} tools on ${text(fall.last.date)}</td>`,
      `<td data-label="Failed sweeps">${count(fall.failures)}</td>`,
      `<td data-label="Also changed">${conditions === '' ? '<span class="muted">nothing on record</span>' : text(conditions)}</td>`,
      '</tr>',
    ].join('');
  });
  const headers = ['Server', 'Now', 'Failing since', 'Last number', 'Failed sweeps', 'Also changed'].map((label) => `<th scope="col">${text(label)}</th>`).join('');
  return ['<div class="scroll"><table id="failed" class="cards">', `<thead><tr>${headers}</tr></thead>`, `<tbody>\n${rows.join('\n')}\n</tbody>`, '</table></div>'].join('\n');
}

function movementsTable(movements: readonly CostMovement[], segments: ReadonlyMap<string, string>): string {
  if (movements.length === 0) return '<p>No server has moved.</p>';
  const rows = movements.map((movement) => {
    const conditions = conditionsText(movement.conditions);
    return [
      `<tr${movement.emphasised ? ' class="emphasised"' : ''}>`,
      `<td class="name" data-label="Server">${serverLink(movement.server, segments.get(movement.server))}</td>`,
      `<td data-label="Window">${text(`${movement.from.date} → ${movement.to.date}`)}</td>`,
      `<td data-label="Tokens">${count(movement.from.tokens)} → ${count(movement.to.tokens)}</td>`,
      `<td data-label="Change" class="delta">${text(change(movement))}</td>`,
      `<td data-label="Mechanism">${text(movement.mechanism)}<br><span class="muted">${text(movement.summary)}</span></td>`,
      `<td data-label="Also changed">${conditions === '' ? '<span class="muted">nothing</span>' : text(conditions)}</td>`,
      `<td data-label="Tools">${count(movement.from.tools)} → ${count(movement.to.tools)}</td>`,
      `<td data-label="Held">${text(held(movement))}</td>`,
      `<td data-label="Per tool">${attribution(movement)}</td>`,
      '</tr>',
    ].join('');
  });
  const headers = ['Server', 'Window', 'Tokens', 'Change', 'Mechanism', 'Also changed', 'Tools', 'Held', 'Per tool'].map((label) => `<th scope="col">${text(label)}</th>`).join('');
  return [
    '<div class="scroll"><table id="movements-table" class="cards">',
    `<thead><tr>${headers}</tr></thead>`,
    `<tbody>\n${rows.join('\n')}\n</tbody>`,
    '</table></div>',
  ].join('\n');
}

function returnedTable(returned: readonly CostReturn[], segments: ReadonlyMap<string, string>): string {
  if (returned.length === 0) return '<p>None.</p>';
  const rows = returned.map((back) =>
    [
      '<tr>',
      `<td class="name" data-label="Server">${serverLink(back.server, segments.get(back.server))}</td>`,
      `<td data-label="Before">${back.before === null ? '<span class="muted">no number before</span>' : `${count(back.before.tokens)} tokens on ${text(back.before.date)}`}</td>`,
      `<td data-label="Failed">${text(back.failed.status)} from ${text(back.failed.date)} (${text(plural(back.failures, 'sweep'))})</td>`,
      `<td data-label="Back">${count(back.returned.tokens)} tokens on ${text(back.returned.date)}</td>`,
      '</tr>',
    ].join(''),
  );
  const headers = ['Server', 'Before', 'Failed', 'Back'].map((label) => `<th scope="col">${text(label)}</th>`).join('');
  return ['<div class="scroll"><table id="returned-table" class="cards">', `<thead><tr>${headers}</tr></thead>`, `<tbody>\n${rows.join('\n')}\n</tbody>`, '</table></div>'].join('\n');
}

function change(movement: CostMovement): string {
  const share = movement.share === null ? 'from 0' : `${movement.share < 0 ? '−' : '+'}${(Math.abs(movement.share) * 100).toFixed(1)}%`;
  return `${signed(movement.delta)} (${share})`;
}

function held(movement: CostMovement): string {
  return movement.heldFor === 1 ? `since ${movement.to.date}` : `since ${movement.to.date} (${movement.heldFor} measurements, latest ${movement.latest})`;
}

function attribution(movement: CostMovement): string {
  const parts = movement.attribution;
  if (parts === 'unavailable') return `<span class="muted">unavailable: ${text(movement.unavailableBecause ?? 'no tool vectors')}</span>`;
  const lines = [
    ...parts.added.map((tool) => toolLine('added', tool)),
    ...parts.removed.map((tool) => toolLine('removed', tool)),
    ...parts.changed.map((tool) => toolLine('changed', tool)),
    `<li>unattributed: ${text(signed(parts.unattributed))} tokens</li>`,
  ];
  const tools = parts.added.length + parts.removed.length + parts.changed.length;
  return `<details><summary>${text(plural(tools, 'tool'))}</summary><ul>${lines.join('')}</ul></details>`;
}

function toolLine(kind: string, tool: ToolDelta): string {
  const sides = kind === 'changed' ? ` (${count(tool.tokensBefore)} → ${count(tool.tokensAfter)})` : '';
  return `<li>${text(kind)} <code>${text(tool.name)}</code>: ${text(signed(tool.delta))} tokens${sides}; description ${text(signed(tool.descriptionDelta))}, input schema ${text(signed(tool.inputSchemaDelta))}, ${tool.outputSchemaDelta === null || tool.restDelta === null ? 'output schema and the rest not on record for both sides' : `output schema ${text(signed(tool.outputSchemaDelta))}, name and the rest ${text(signed(tool.restDelta))}`}</li>`;
}

function signed(value: number): string {
  return value > 0 ? `+${count(value)}` : value < 0 ? `−${count(-value)}` : '0';
}
