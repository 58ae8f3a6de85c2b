import { hasNumber } from '../history/index.js';
import { STATUS_MEANINGS, type PublishedStatus } from '../_model.js';
import { clip, noteText, text } from './_html.js';

// Why a server has no number: its status in the methodology's words, the record's note, and the
// end of what it wrote to stderr. Short on the index, whole on the server page. Any status is
// rendered the same way from STATUS_MEANINGS, so a new status needs no change here.

const SHORT_NOTE_CHARS = 200;
const SHORT_STDERR_LINES = 3;
const SHORT_STDERR_CHARS = 240;

/** A record that was made but holds no number: every status but measured, dynamic and not-yet-run. */
export function isFailure(status: PublishedStatus): boolean {
  return status !== 'not-yet-run' && !hasNumber(status);
}

function measuredStatus(status: PublishedStatus): boolean {
  return status !== 'not-yet-run' && hasNumber(status);
}

export function statusMeaning(status: PublishedStatus): string {
  return (STATUS_MEANINGS as Readonly<Record<string, string>>)[status] ?? 'a status this site has no description for';
}

/** The status's class for colour: the same for every failure, whatever its name. */
export function statusClass(status: PublishedStatus): string {
  return measuredStatus(status) ? 'status-ok' : status === 'not-yet-run' ? 'status-pending' : 'status-failed';
}

/** For the index's status cell: the meaning, the note's start and the stderr's last lines. */
export function shortFailure(status: PublishedStatus, note: string, stderrTail: string | null): string {
  const lines = (stderrTail ?? '').split('\n').filter((line) => line.trim() !== '');
  const tail = clip(lines.slice(-SHORT_STDERR_LINES).join('\n'), SHORT_STDERR_CHARS);
  return [
    `<span class="why">${text(statusMeaning(status))}</span>`,
    note === '' ? '' : `<span class="why-note">${text(clip(note, SHORT_NOTE_CHARS))}</span>`,
    lines.length === 0 ? '<span class="muted stderr-none">no stderr recorded</span>' : `<span class="stderr-label">stderr, last lines:</span><code class="stderr-short">${text(tail)}</code>`,
  ]
    .filter((part) => part !== '')
    .join('');
}

/** For the server page: the whole recorded tail, escaped, or a sentence saying there is none. */
export function failureSection(status: PublishedStatus, note: string, stderrTail: string | null): string {
  const tail = (stderrTail ?? '').replace(/\s+$/, '');
  return [
    '<section id="failure">',
    '<h2>Why it has no number</h2>',
    `<p><span class="status ${statusClass(status)}">${text(status)}</span>: ${text(statusMeaning(status))}.</p>`,
    note === '' ? '' : `<p class="note"><strong>Note:</strong> ${noteText(note)}</p>`,
    '<h3>stderr, last lines</h3>',
    tail === '' ? `<p id="stderr" class="muted">no stderr recorded${stderrTail === null ? ' (the record has no stderr field)' : ''}</p>` : `<pre id="stderr"><code>${text(tail)}</code></pre>`,
    '</section>',
  ]
    .filter((part) => part !== '')
    .join('\n');
}
