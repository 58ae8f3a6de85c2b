// The one Markdown reader behind the docs tests (links, options, examples): fenced code blocks,
// inline code spans, links, headings and their GitHub anchors. It reads only as much Markdown as
// our pages use; where CommonMark is subtler, the choice here is the one GitHub renders.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface CodeBlock {
  /** The info string's first word (`console`, `sh`, `ts`), lowercased; '' when none. */
  lang: string;
  /** The whole info string, for attributes such as `exit=1`. */
  info: string;
  /** The lines between the fences, the fence's indentation removed. */
  lines: string[];
  /** 1-based line number of the first content line. */
  firstLine: number;
}

export interface InlineCode {
  text: string;
  /** 1-based line where the span starts. */
  line: number;
}

export interface Link {
  target: string;
  line: number;
}

export interface Heading {
  level: number;
  text: string;
  line: number;
}

export interface MarkdownPage {
  file: string;
  lines: string[];
  codeBlocks: CodeBlock[];
  /** The page's lines with every code block line blanked: what is rendered as prose. */
  prose: string[];
  inlineCode: InlineCode[];
  links: Link[];
  headings: Heading[];
  /** Every anchor a link may name: heading slugs (with -1, -2 for repeats) and `<a id|name>`. */
  anchors: Set<string>;
}

const FENCE = /^(\s*)(`{3,}|~{3,})(.*)$/;

export function readPage(file: string): MarkdownPage {
  return parseMarkdown(readFileSync(file, 'utf8'), file);
}

export function parseMarkdown(text: string, file = '<text>'): MarkdownPage {
  const lines = text.split('\n').map((line) => line.replace(/\r$/, ''));
  const codeBlocks: CodeBlock[] = [];
  const prose = [...lines];
  let open: { indent: number; fence: string; info: string; start: number } | undefined;
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] ?? '';
    if (open === undefined) {
      const match = FENCE.exec(line);
      // A backtick fence's info string may not hold a backtick (that is inline code instead).
      if (match === null || (match[2]!.startsWith('`') && match[3]!.includes('`'))) continue;
      open = { indent: match[1]!.length, fence: match[2]!, info: match[3]!.trim(), start: index };
      prose[index] = '';
      continue;
    }
    prose[index] = '';
    const close = /^\s*(`{3,}|~{3,})\s*$/.exec(line);
    if (close !== null && close[1]![0] === open.fence[0] && close[1]!.length >= open.fence.length) {
      codeBlocks.push(blockOf(lines, open, index));
      open = undefined;
    }
  }
  // An unclosed fence runs to the end of the page, as GitHub renders it.
  if (open !== undefined) codeBlocks.push(blockOf(lines, open, lines.length));

  const inlineCode: InlineCode[] = [];
  const withoutCode = stripInlineCode(prose, inlineCode);
  const headings = findHeadings(withoutCode, prose);
  return {
    file,
    lines,
    codeBlocks,
    prose,
    inlineCode,
    links: findLinks(withoutCode),
    headings,
    anchors: anchorsOf(headings, withoutCode),
  };
}

function blockOf(lines: readonly string[], open: { indent: number; info: string; start: number }, end: number): CodeBlock {
  const body = lines.slice(open.start + 1, end).map((line) => {
    // Content is unindented by up to the fence's own indentation (a fence inside a list item).
    const strip = Math.min(open.indent, line.length - line.trimStart().length);
    return line.slice(strip);
  });
  return { lang: (open.info.split(/\s+/)[0] ?? '').toLowerCase(), info: open.info, lines: body, firstLine: open.start + 2 };
}

/**
 * Finds inline code spans paragraph by paragraph (a span may wrap onto the next line but never
 * crosses a blank line) and returns the prose with each span replaced by spaces of its length, so
 * links and headings are read without what code spans hold, at unchanged line positions.
 */
function stripInlineCode(prose: readonly string[], found: InlineCode[]): string[] {
  const out = [...prose];
  let start = 0;
  while (start < prose.length) {
    while (start < prose.length && prose[start]!.trim() === '') start++;
    let end = start;
    while (end < prose.length && prose[end]!.trim() !== '') end++;
    if (end > start) stripParagraph(out, start, end, found);
    start = end;
  }
  return out;
}

function stripParagraph(out: string[], start: number, end: number, found: InlineCode[]): void {
  const text = out.slice(start, end).join('\n');
  const lineAt = (offset: number): number => start + 1 + (text.slice(0, offset).match(/\n/g)?.length ?? 0);
  let result = '';
  let index = 0;
  while (index < text.length) {
    const tick = text.indexOf('`', index);
    if (tick < 0) break;
    let run = tick;
    while (text[run] === '`') run++;
    const width = run - tick;
    // The closing run must be exactly as long as the opening one.
    let close = -1;
    for (let search = run; search < text.length; ) {
      const next = text.indexOf('`', search);
      if (next < 0) break;
      let after = next;
      while (text[after] === '`') after++;
      if (after - next === width) {
        close = next;
        break;
      }
      search = after;
    }
    if (close < 0) {
      result += text.slice(index, run); // an unmatched run is literal text
      index = run;
      continue;
    }
    let content = text.slice(run, close).replace(/\n/g, ' ');
    if (/^ .*[^ ].* $/.test(content)) content = content.slice(1, -1);
    found.push({ text: content, line: lineAt(tick) });
    result += text.slice(index, tick) + text.slice(tick, close + width).replace(/[^\n]/g, ' ');
    index = close + width;
  }
  result += text.slice(index);
  const replaced = result.split('\n');
  for (let offset = 0; offset < replaced.length; offset++) out[start + offset] = replaced[offset]!;
}

/** Link targets of `[text](target)`, `![alt](target)`, `[ref]: target` and HTML href/src. */
function findLinks(prose: readonly string[]): Link[] {
  const links: Link[] = [];
  prose.forEach((line, index) => {
    const lineNumber = index + 1;
    for (let at = line.indexOf(']('); at >= 0; at = line.indexOf('](', at + 2)) {
      const target = linkTarget(line.slice(at + 2));
      if (target !== undefined) links.push({ target, line: lineNumber });
    }
    const definition = /^\s{0,3}\[[^\]]+\]:\s+(<[^>]*>|\S+)/.exec(line);
    if (definition !== null) links.push({ target: definition[1]!.replace(/^<|>$/g, ''), line: lineNumber });
    for (const match of line.matchAll(/\s(?:href|src)="([^"]*)"/g)) links.push({ target: match[1]!, line: lineNumber });
  });
  return links;
}

/** The destination at the start of `rest` (what follows `](`), up to its balanced `)`. */
function linkTarget(rest: string): string | undefined {
  if (rest.startsWith('<')) {
    const end = rest.indexOf('>');
    return end < 0 ? undefined : rest.slice(1, end);
  }
  let depth = 0;
  for (let index = 0; index < rest.length; index++) {
    const char = rest[index]!;
    if (char === '(') depth++;
    else if (char === ')') {
      if (depth === 0) return rest.slice(0, index).trim().split(/\s+/)[0];
      depth--;
    } else if (char === ' ' && depth === 0) {
      // A title follows ("...") : the destination ends here.
      return rest.slice(0, index);
    }
  }
  return undefined;
}

function findHeadings(withoutCode: readonly string[], prose: readonly string[]): Heading[] {
  const headings: Heading[] = [];
  withoutCode.forEach((line, index) => {
    const atx = /^ {0,3}(#{1,6})\s+(.*?)(?:\s+#+)?\s*$/.exec(line);
    if (atx !== null) {
      // The heading's text as rendered: inline code keeps its content (read from `prose`).
      headings.push({ level: atx[1]!.length, text: renderedText(prose[index]!.replace(/^ {0,3}#{1,6}\s+/, '').replace(/\s+#+\s*$/, '')), line: index + 1 });
      return;
    }
    const underline = /^ {0,3}(=+|-+)\s*$/.exec(line);
    const above = withoutCode[index - 1];
    if (underline !== null && above !== undefined && above.trim() !== '' && !/^\s*([-*+]|\d+\.)\s/.test(above) && !above.includes('|')) {
      headings.push({ level: underline[1]!.startsWith('=') ? 1 : 2, text: renderedText(prose[index - 1]!.trim()), line: index });
    }
  });
  return headings;
}

/** Markdown inline syntax reduced to the text GitHub shows (and slugs). */
function renderedText(source: string): string {
  // Code spans are taken literally; emphasis and links are read only outside them.
  return source
    .split(/(`+[^`]*`+)/)
    .map((part, index) =>
      index % 2 === 1
        ? part.replace(/^`+|`+$/g, '')
        : part
            .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
            .replace(/<[^>]+>/g, '')
            .replace(/(\*\*|\*)(\S(?:.*?\S)?)\1/g, '$2')
            // `_` emphasises only at word boundaries: snake_case stays as written.
            .replace(/(?<!\w)(__|_)(\S(?:.*?\S)?)\1(?!\w)/g, '$2'),
    )
    .join('')
    .trim();
}

/** GitHub's anchor for a heading: lowercase, punctuation but `-` and `_` removed, spaces to `-`. */
export function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

function anchorsOf(headings: readonly Heading[], withoutCode: readonly string[]): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const heading of headings) {
    const base = slug(heading.text);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  for (const line of withoutCode) {
    for (const match of line.matchAll(/<a\s[^>]*?\b(?:id|name)="([^"]+)"/g)) anchors.add(match[1]!);
  }
  return anchors;
}

/**
 * The pages the docs tests read: README.md and every Markdown file under docs/ but the generated
 * site. Paths are relative to the clone's root.
 */
export function docPages(): string[] {
  const pages = ['README.md'];
  const walk = (dir: string): void => {
    for (const name of readdirSync(join(ROOT, dir)).sort()) {
      const path = `${dir}/${name}`;
      if (path === 'docs/leaderboard/site') continue;
      if (statSync(join(ROOT, path)).isDirectory()) walk(path);
      else if (name.endsWith('.md')) pages.push(path);
    }
  };
  walk('docs');
  return pages;
}

/** Splits a table row into its cells (outer pipes dropped; `\|` kept inside a cell). */
export function tableCells(line: string): string[] | undefined {
  const trimmed = line.trim();
  if (!trimmed.startsWith('|')) return undefined;
  const cells = trimmed
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim());
  return cells;
}
