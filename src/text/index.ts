// Text for people, shared by every report (a leaf: no imports): counts with their noun, the name a typo meant, text
// from a server or a file made safe to print in a terminal, a Markdown table or a note, and a file's change as a
// unified diff with secret values blanked out.
export { MAX_NOTE_CHARS, plural, printableText } from './_printable.js';
export { foldCaseAndSeparators, foldLookAlikes, foldName } from './_look-alikes.js';
export { nearestName } from './_nearest-name.js';
export { unifiedDiff } from './_diff.js';
export { REDACTED, redact } from './_redact.js';
