/**
 * Printed diffs show a client file's lines, and those hold env and header values (tokens, keys).
 * Every literal value of the file's entries is replaced before anything is printed, as written and
 * as a JSON string escapes it. Values shorter than 4 characters are only replaced where they stand
 * quoted or after `=`/`:` (replacing every `1` or `on` would garble the diff and hide nothing).
 */

export const REDACTED = '<redacted>';

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export function redact(text: string, secrets: Iterable<string>): string {
  const forms = new Set<string>();
  for (const secret of secrets) {
    if (secret === '') continue;
    forms.add(secret);
    forms.add(JSON.stringify(secret).slice(1, -1));
  }
  // Longest first, so a value containing another is replaced whole.
  let out = text;
  for (const form of [...forms].sort((a, b) => b.length - a.length)) {
    if (form.length >= 4) out = out.split(form).join(REDACTED);
    else out = out.replace(new RegExp(`(["']|[:=] ?)${escapeRegExp(form)}(["']|$)`, 'gm'), `$1${REDACTED}$2`);
  }
  return out;
}
