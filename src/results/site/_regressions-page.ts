import { plural } from '../../text/index.js';
import { COST_REGRESSION_METHOD, EMPHASIS_MIN_SHARE, EMPHASIS_MIN_TOKENS, costMovements, hasNumber, type CostMovement, type ToolDelta } from '../history/index.js';
import type { HistoryRow } from '../_model.js';
import { isFailure, statusClass, statusMeaning } from './_failure.js';
import { attr, clip, count, page, text } from './_html.js';
import type { SiteInput, SiteServer } from './_read.js';

// regressions.html: first the servers that had a number and now fail (a failed sweep is a gap in
// the cost series, so cost movements alone would never show them), then every cost movement as
// results/regressions.md derives it (costMovements), with its per-tool attribution on demand.

/** A server whose newest record failed after an earlier sweep measured it. */
interface FailedAfterMeasured {
  server: SiteServer;
  /** The last row with a number. */
  measured: HistoryRow;
  /** The first failed row after it. */
  failedSince: string;
}

export function regressionsPage(input: SiteInput, stamp: string): string {
  const failed = failedAfterMeasured(input);
  const movements = costMovements(input.state);
  const segments = new Map(input.servers.map((server) => [server.row.server, server.segment]));
  const body = [
    '<h1>Regressions</h1>',
    `<p>What got worse, newest state first: servers that had a number and now fail, then each server's most recent cost movement (method <code>${text(COST_REGRESSION_METHOD)}</code>; only measurements under the same isolation are compared, and a failed sweep is a gap, never a drop to zero). A movement is <strong>emphasised</strong> when it is at least ${EMPHASIS_MIN_SHARE * 100}% and at least ${EMPHASIS_MIN_TOKENS} tokens.</p>`,
    '<h2 id="failed-after-measured">Failing after a measurement</h2>',
    failedTable(failed),
    `<h2 id="movements">Cost movements (${text(plural(movements.length, 'server'))})</h2>`,
    movementsTable(movements, segments),
  ].join('\n');
  return page({ title: 'MCP server context cost: regressions', root: '', body, script: false, stamp });
}

function failedAfterMeasured(input: SiteInput): FailedAfterMeasured[] {
  const found: FailedAfterMeasured[] = [];
  for (const server of input.servers) {
    if (!isFailure(server.row.status)) continue;
    const rows = input.history.filter((row) => row.server === server.row.server).sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
    let last = -1;
    rows.forEach((row, index) => {
      if (hasNumber(row.status) && row.tokens !== null) last = index;
    });
    const measured = rows[last];
    const after = rows[last + 1];
    if (measured !== undefined && after !== undefined) found.push({ server, measured, failedSince: after.date });
  }
  return found;
}

function serverLink(name: string, segment: string | undefined): string {
  return segment === undefined ? text(name) : `<a href="servers/${attr(segment)}.html">${text(name)}</a>`;
}

function failedTable(failed: readonly FailedAfterMeasured[]): string {
  if (failed.length === 0) return '<p>None: no server that had a number has failed since.</p>';
  const rows = failed.map(({ server, measured, failedSince }) =>
    [
      `<tr data-name="${attr(server.row.server.toLowerCase())}">`,
      `<td class="name" data-label="Server">${serverLink(server.row.server, server.segment)}</td>`,
      `<td data-label="Now"><span class="status ${statusClass(server.row.status)}">${text(server.row.status)}</span> <span class="why">${text(statusMeaning(server.row.status))}</span>${server.row.note === '' ? '' : ` <span class="why-note">${text(clip(server.row.note, 200))}</span>`}</td>`,
      `<td data-label="Failing since">${text(failedSince)}</td>`,
      `<td data-label="Last number">${count(measured.tokens)} tokens, ${count(measured.tools)} tools on ${text(measured.date)}</td>`,
      '</tr>',
    ].join(''),
  );
  return [
    '<div class="scroll"><table id="failed" class="cards">',
    '<thead><tr><th scope="col">Server</th><th scope="col">Now</th><th scope="col">Failing since</th><th scope="col">Last number</th></tr></thead>',
    `<tbody>\n${rows.join('\n')}\n</tbody>`,
    '</table></div>',
  ].join('\n');
}

function movementsTable(movements: readonly CostMovement[], segments: ReadonlyMap<string, string>): string {
  if (movements.length === 0) return '<p>No server has moved.</p>';
  const rows = movements.map((movement) =>
    [
      `<tr${movement.emphasised ? ' class="emphasised"' : ''}>`,
      `<td class="name" data-label="Server">${serverLink(movement.server, segments.get(movement.server))}</td>`,
      `<td data-label="Window">${text(`${movement.from.date} → ${movement.to.date}`)}</td>`,
      `<td data-label="Tokens">${count(movement.from.tokens)} → ${count(movement.to.tokens)}</td>`,
      `<td data-label="Change" class="delta">${text(change(movement))}</td>`,
      `<td data-label="Mechanism">${text(movement.mechanism)}</td>`,
      `<td data-label="Tools">${count(movement.from.tools)} → ${count(movement.to.tools)}</td>`,
      `<td data-label="Held">${text(held(movement))}</td>`,
      `<td data-label="Per tool">${attribution(movement)}</td>`,
      '</tr>',
    ].join(''),
  );
  const headers = ['Server', 'Window', 'Tokens', 'Change', 'Mechanism', 'Tools', 'Held', 'Per tool'].map((label) => `<th scope="col">${text(label)}</th>`).join('');
  return [
    '<div class="scroll"><table id="movements-table" class="cards">',
    `<thead><tr>${headers}</tr></thead>`,
    `<tbody>\n${rows.join('\n')}\n</tbody>`,
    '</table></div>',
  ].join('\n');
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
  return `<li>${text(kind)} <code>${text(tool.name)}</code>: ${text(signed(tool.delta))} tokens${sides}; description ${text(signed(tool.descriptionDelta))}, input schema ${text(signed(tool.inputSchemaDelta))}</li>`;
}

function signed(value: number): string {
  return value > 0 ? `+${count(value)}` : value < 0 ? `−${count(-value)}` : '0';
}
