/**
 * A unified line diff, small and bounded: common head and tail trimmed, then a longest common
 * subsequence table over what is left. Past MAX_CELLS the middle is shown as removed then added,
 * which is still a correct (if long) diff. Config files are short; the bound keeps a huge
 * ~/.claude.json from costing quadratic memory.
 */

const MAX_CELLS = 4_000_000;
const CONTEXT = 3;

type Op = { kind: ' ' | '-' | '+'; line: string };

function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

function middleOps(before: string[], after: string[]): Op[] {
  const n = before.length;
  const m = after.length;
  if (n * m > MAX_CELLS) return [...before.map((line): Op => ({ kind: '-', line })), ...after.map((line): Op => ({ kind: '+', line }))];
  // lengths[i][j]: LCS of before[i..] and after[j..], in one flat array.
  const width = m + 1;
  const lengths = new Uint32Array((n + 1) * width);
  for (let i = n - 1; i >= 0; i -= 1) {
    for (let j = m - 1; j >= 0; j -= 1) {
      lengths[i * width + j] = before[i] === after[j] ? (lengths[(i + 1) * width + j + 1] ?? 0) + 1 : Math.max(lengths[(i + 1) * width + j] ?? 0, lengths[i * width + j + 1] ?? 0);
    }
  }
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (before[i] === after[j]) {
      ops.push({ kind: ' ', line: before[i] ?? '' });
      i += 1;
      j += 1;
    } else if ((lengths[(i + 1) * width + j] ?? 0) >= (lengths[i * width + j + 1] ?? 0)) {
      ops.push({ kind: '-', line: before[i] ?? '' });
      i += 1;
    } else {
      ops.push({ kind: '+', line: after[j] ?? '' });
      j += 1;
    }
  }
  for (; i < n; i += 1) ops.push({ kind: '-', line: before[i] ?? '' });
  for (; j < m; j += 1) ops.push({ kind: '+', line: after[j] ?? '' });
  return ops;
}

/** `--- a` / `+++ b` and hunks with 3 lines of context; empty when the texts are equal. */
export function unifiedDiff(beforeText: string, afterText: string, labels: { before: string; after: string }): string {
  if (beforeText === afterText) return '';
  const before = splitLines(beforeText);
  const after = splitLines(afterText);
  let head = 0;
  while (head < before.length && head < after.length && before[head] === after[head]) head += 1;
  let tail = 0;
  while (tail < before.length - head && tail < after.length - head && before[before.length - 1 - tail] === after[after.length - 1 - tail]) tail += 1;
  const ops: Op[] = [
    ...before.slice(0, head).map((line): Op => ({ kind: ' ', line })),
    ...middleOps(before.slice(head, before.length - tail), after.slice(head, after.length - tail)),
    ...before.slice(before.length - tail).map((line): Op => ({ kind: ' ', line })),
  ];
  const out = [`--- ${labels.before}`, `+++ ${labels.after}`];
  let index = 0;
  let oldLine = 1;
  let newLine = 1;
  while (index < ops.length) {
    // Find the next change, then grow a hunk until CONTEXT*2 unchanged lines separate changes.
    let start = index;
    while (start < ops.length && ops[start]?.kind === ' ') start += 1;
    if (start === ops.length) break;
    const from = Math.max(index, start - CONTEXT);
    for (let k = index; k < from; k += 1) {
      oldLine += 1;
      newLine += 1;
    }
    let end = start;
    let quiet = 0;
    for (let k = start; k < ops.length; k += 1) {
      if (ops[k]?.kind === ' ') {
        quiet += 1;
        if (quiet > CONTEXT * 2) break;
      } else {
        quiet = 0;
        end = k;
      }
    }
    const to = Math.min(ops.length, end + 1 + CONTEXT);
    const hunk = ops.slice(from, to);
    const oldCount = hunk.filter((op) => op.kind !== '+').length;
    const newCount = hunk.filter((op) => op.kind !== '-').length;
    out.push(`@@ -${oldCount === 0 ? oldLine - 1 : oldLine},${oldCount} +${newCount === 0 ? newLine - 1 : newLine},${newCount} @@`);
    for (const op of hunk) out.push(`${op.kind}${op.line}`);
    oldLine += oldCount;
    newLine += newCount;
    index = to;
  }
  return `${out.join('\n')}\n`;
}
