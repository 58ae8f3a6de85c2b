import { BAND_LIMITS, MEASUREMENT_FILE, METHODOLOGY } from '../../measure/index.js';
import { TOKENIZER } from '../../tokens/index.js';
import { STATUS_MEANINGS, type PublishedStatus } from '../_model.js';
import { DEFAULT_CONTAINER } from '../sweep/_docker.js';
import { statusClass } from './_failure.js';
import { count, page, text } from './_html.js';

// methodology.html: written from the constants the code measures with, so the page cannot say
// one thing while the code does another.

export function methodologyPage(stamp: string): string {
  let lower = 0;
  const bands = BAND_LIMITS.map(({ band, below }) => {
    const range = below === null ? `${count(lower)} or more` : lower === 0 ? `below ${count(below)}` : `${count(lower)} – ${count(below - 1)}`;
    lower = below ?? lower;
    return `<tr class="band-${band}"><td><span class="band">${text(band)}</span></td><td>${text(range)}</td></tr>`;
  });
  const statuses = (Object.entries(STATUS_MEANINGS) as Array<[PublishedStatus, string]>).map(
    ([status, meaning]) => `<tr id="status-${status}"><td><span class="status ${statusClass(status)}">${text(status)}</span></td><td>${text(meaning)}</td></tr>`,
  );
  const body = [
    `<h1>Methodology <code>${text(METHODOLOGY)}</code></h1>`,
    '<h2>What the number is</h2>',
    `<p>The number of ${text(TOKENIZER.encoding)} tokens (${text(TOKENIZER.name)} ${text(TOKENIZER.version)}) in <code>JSON.stringify(tools)</code>, where <code>tools</code> is every page of the server's <code>tools/list</code> answer concatenated in the order the server sent them, exactly as parsed from the wire: key order kept, unknown fields kept. The client declares no capabilities at <code>initialize</code>, so where a server offers more tools to a client that declares more, the number is a floor.</p>`,
    '<h2 id="verify">Verify</h2>',
    // Not `npx mcpctx`: mcpctx is not on npm, and npx would fetch whatever package holds that name.
    `<p>Each record keeps the raw capture, its canonical sha256 and the launch (variable and header names, never their values). mcpctx's <code>verify</code> re-derives every figure from the capture; each server page links its record. mcpctx is not published on npm: in a clone of mcpctx, after <code>npm ci</code>:</p>`,
    `<pre><code id="verify-command">${text(`node dist/cli/main.js verify path/to/${MEASUREMENT_FILE}`)}</code></pre>`,
    '<h2>Session-start load</h2>',
    '<p>What a client that defers tool definitions still loads at the start of a session: the tool names and the server\'s instructions. Marked ≥ where the instructions were not captured.</p>',
    '<h2>Colour bands</h2>',
    '<table id="bands"><thead><tr><th scope="col">Band</th><th scope="col">Tokens</th></tr></thead>',
    `<tbody>\n${bands.join('\n')}\n</tbody></table>`,
    '<h2>Statuses</h2>',
    '<p>Every server on the list is published with exactly one status; a failure is never dropped.</p>',
    '<table id="statuses"><thead><tr><th scope="col">Status</th><th scope="col">Meaning</th></tr></thead>',
    `<tbody>\n${statuses.join('\n')}\n</tbody></table>`,
    '<h2 id="schedule">When a server is measured</h2>',
    '<p>A sweep may measure part of the list: a rotation slice (a hash of each name picks its group, the ISO week of the sweep date picks the group measured, so the whole list comes round every few weeks and adding a server moves no other), plus a reference server measured every week as a drift check of the harness. Servers outside the slice keep their latest record; each row shows its own date, and the header of every page says what the last sweep measured.</p>',
    '<h2 id="isolation">Isolation</h2>',
    `<p>A server measured in docker runs in a throwaway container whose image, network and limits its record keeps and its page shows. The defaults: image <code>${text(DEFAULT_CONTAINER.image)}</code>, network ${text(DEFAULT_CONTAINER.network)} (the package registry, not the host's loopback), ${text(DEFAULT_CONTAINER.memory)} of memory without swap, ${text(DEFAULT_CONTAINER.cpus)} cores, at most ${count(DEFAULT_CONTAINER.pids)} processes.</p>`,
    '<h2>Trends</h2>',
    '<p>A trend spans only the run of sweeps, ending at the newest, measured under the same isolation (host or docker). Rows whose isolation was not recorded still plot, and the server page says so; a failed sweep is a gap, never a drop to zero.</p>',
  ].join('\n');
  return page({ title: `Methodology ${METHODOLOGY}`, root: '', body, script: false, stamp });
}
