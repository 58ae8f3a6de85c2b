// Text for people: counts with their noun, and what a peer sent made safe to print.

/** `1 capture`, `2 captures`. */
export function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
  return `${count.toLocaleString('en-US')} ${count === 1 ? singular : pluralForm}`;
}

// Terminal escape sequences (CSI such as colours, OSC such as titles and links, and the
// two-character ones), then any other control character, and the bidirectional overrides that
// make text read differently than it is.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const ESCAPE_SEQUENCES = /\u001b(?:\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|[@-Z\\-_])/g;
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL_CHARACTERS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
/** Longest note kept; what a server says beyond it is cut, and the cut is said. */
export const MAX_NOTE_CHARS = 2_000;

/**
 * Server text made safe to print: escape sequences and control characters removed, line ends
 * made `\n` (a note is made one line), and a note bounded at MAX_NOTE_CHARS.
 */
export function printableText(text: string, shape: 'note' | 'lines'): string {
  const clean = text.replace(ESCAPE_SEQUENCES, '').replace(/\r\n?/g, '\n').replace(CONTROL_CHARACTERS, '');
  if (shape === 'lines') return clean;
  const line = clean.replace(/\s*[\n\t]\s*/g, ' ');
  return line.length > MAX_NOTE_CHARS ? `${line.slice(0, MAX_NOTE_CHARS)}… (${plural(line.length - MAX_NOTE_CHARS, 'more character')})` : line;
}
