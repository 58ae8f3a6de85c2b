/** A value as it appears in a failure message or a problem: JSON, cut to `maxChars`, `absent` for undefined. */
export function shown(value: unknown, maxChars: number): string {
  if (value === undefined) return 'absent';
  let text: string;
  try {
    text = (JSON.stringify(value) as string | undefined) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > maxChars ? `${text.slice(0, maxChars)}…` : text;
}
