import type * as SmolToml from 'smol-toml';
import { lazyRequire } from '../lazy/index.js';
import { lineAndColumn } from '../tokens/index.js';
import { isPlainObject } from '../json/index.js';
import { firstLine } from '../config/index.js';
import type { ServerMapEdit } from './_edit-types.js';
import { type Spliced, type TextEdit, keyPathText, lineEndingOf, linesAt, namesProblem, replaceLines, spliced, swallowBlankLines } from './_edit-text.js';
import { type TomlStatement, tomlStatements } from './_toml-statements.js';

const toml = lazyRequire<typeof SmolToml>('smol-toml');

/**
 * The TOML editor (Codex's config.toml). smol-toml gives no offsets, so the text is read as
 * statements (`_toml-statements.ts`) and a server is edited only when it is written as tables:
 * `[mcp_servers.NAME]` and its sub-tables (`[mcp_servers.NAME.env]`, wherever they sit in the
 * file). Each such section is its header line through its last key line. Choices:
 * - Comment lines right above a header (no blank line between) belong to that header: they stay
 *   when the section above is removed, and go with their own section (in TOML a comment sits on
 *   the table it describes; left behind, `# the memory server` would sit above the gateway's
 *   table). Comment lines at a section's end followed by a blank line are the section's too.
 * - The added server is a new `[mcp_servers.NAME]` table after the map's last section, a blank
 *   line before it, in the file's line ending.
 * - Refused, by name: the map as one inline table (`mcp_servers = {...}`), a server written as an
 *   inline table or dotted keys (`x = {...}` under `[mcp_servers]`, `mcp_servers.x.command = ...`
 *   anywhere), arrays of tables (`[[mcp_servers]]`, `[[mcp_servers.x]]`): their text does not
 *   split into one block per server.
 */
export function editTomlText(text: string, edit: ServerMapEdit): Spliced {
  let data: unknown;
  try {
    data = toml().parse(text);
  } catch (error) {
    const where = error instanceof toml().TomlError ? ` at line ${error.line}, column ${error.column}` : '';
    const message = firstLine(error instanceof Error ? error.message : String(error)).replace(/^Invalid TOML document: /, '');
    return { refused: `the file is not valid TOML (${message}${where}); fix it first` };
  }
  const statements = tomlStatements(text);
  if (!Array.isArray(statements)) {
    const { line, column } = lineAndColumn(text, statements.failedAt);
    return { refused: `line ${line}, column ${column} of the file is TOML that mcpctx does not edit; edit the file by hand` };
  }
  const mapAt = edit.serversAt;
  const here = keyPathText(mapAt);

  // What the data says: the map is a table (or absent), and which names it holds.
  let node: unknown = data;
  for (const [depth, key] of mapAt.entries()) {
    if (!isPlainObject(node)) return { refused: `${keyPathText(mapAt.slice(0, depth))} is not a table` };
    node = Object.hasOwn(node, key) ? node[key] : undefined;
    if (node === undefined) break;
  }
  if (node !== undefined && !isPlainObject(node)) {
    return { refused: `${here} is ${Array.isArray(node) ? 'an array of tables ([[...]]); Codex reads a table of servers by name' : `a ${typeof node}, not a table of servers by name`}` };
  }
  const problem = namesProblem(new Set(node === undefined ? [] : Object.keys(node)), edit.remove, edit.addName, mapAt);
  if (problem !== undefined) return { refused: problem };
  const removing = new Set(edit.remove);

  // What the text says: every server written as sections, nothing written otherwise.
  const sections = serverSections(text, statements, mapAt);
  if ('refused' in sections) return sections;
  const edits: TextEdit[] = [];
  const lastSection = sections.list.at(-1);
  const removed = (section: Section): boolean => section.server !== undefined && removing.has(section.server);
  for (const section of sections.list) {
    if (section !== lastSection && removed(section)) edits.push({ start: section.lead, end: swallowBlankLines(text, section.lead, section.end), insert: '' });
  }
  const eol = lineEndingOf(text);
  const table = [`[${[...mapAt, edit.addName].map(tomlKey).join('.')}]`, ...Object.entries(edit.addValue).map(([key, value]) => `${tomlKey(key)} = ${tomlValue(value)}`)];
  if (lastSection === undefined) {
    // No section of the map yet: the table goes at the end of the file, after a blank line.
    const blank = text.trim() === '' || text.endsWith(`${eol}${eol}`) ? [] : [''];
    const lead = text === '' || text.endsWith('\n') ? blank : ['', ...blank];
    const insert = [...lead, ...table].join(eol) + (text === '' || text.endsWith('\n') ? eol : '');
    edits.push({ start: text.length, end: text.length, insert });
  } else {
    // After the map's last section, a blank line between; in its place when that section is removed.
    if (removed(lastSection)) edits.push(replaceLines(text, lastSection.lead, lastSection.end, table, eol));
    else edits.push(linesAt(text, lastSection.end, ['', ...table], eol));
  }
  return spliced(text, edits);
}

interface Section {
  /** The server the section belongs to; undefined for the map's own `[mcp_servers]` header. */
  readonly server: string | undefined;
  readonly start: number;
  readonly end: number;
  /** Where the comment lines right above the header start (the header's own start when there are none). */
  readonly lead: number;
}

function startsWith(path: readonly string[], prefix: readonly string[]): boolean {
  return prefix.length <= path.length && prefix.every((key, index) => path[index] === key);
}

function lineOf(text: string, offset: number): number {
  return lineAndColumn(text, offset).line;
}

/** The sections of the map's servers in file order, or the form that keeps the file from being edited. */
function serverSections(text: string, statements: readonly TomlStatement[], mapAt: readonly string[]): { list: Section[] } | { refused: string } {
  const here = keyPathText(mapAt);
  const list: Section[] = [];
  let table: readonly string[] = [];
  let current: { server: string | undefined; start: number; end: number; lead: number; pendingComments: number | undefined } | undefined;
  let commentRun: number | undefined;
  const close = (): void => {
    if (current !== undefined) list.push({ server: current.server, start: current.start, end: current.end, lead: current.lead });
    current = undefined;
  };
  for (const statement of statements) {
    const lead = commentRun ?? statement.start;
    if (statement.kind === 'comment') commentRun ??= statement.start;
    else commentRun = undefined;
    if (statement.kind === 'header') {
      close();
      table = statement.path;
      if (!startsWith(statement.path, mapAt)) continue;
      const server = statement.path[mapAt.length];
      if (statement.array && statement.path.length <= mapAt.length + 1) {
        return { refused: `line ${lineOf(text, statement.start)} makes ${here} an array of tables ([[...]]), which mcpctx does not edit; write each server as a [${keyPathText([...mapAt, 'NAME'])}] table` };
      }
      current = { server, start: statement.start, end: statement.end, lead, pendingComments: undefined };
      continue;
    }
    if (statement.kind === 'key') {
      const full = [...table, ...statement.path];
      const inSection = current !== undefined && current.server !== undefined;
      if (!inSection && startsWith(full, mapAt)) {
        const server = full[mapAt.length];
        const form = server === undefined
          ? `${here} is written as one inline table (line ${lineOf(text, statement.start)})`
          : `server ${JSON.stringify(server)} is written as ${statement.path.length > 1 ? 'dotted keys' : 'an inline table'} under ${table.length === 0 ? 'the top of the file' : `[${keyPathText(table)}]`} (line ${lineOf(text, statement.start)})`;
        return { refused: `${form}, which mcpctx does not edit safely: write each server as a [${keyPathText([...mapAt, 'NAME'])}] table, then wrap again` };
      }
      if (current !== undefined) {
        current.end = statement.end;
        current.pendingComments = undefined;
      }
      continue;
    }
    if (current === undefined) continue;
    // Comments after a section's last key are the section's when a blank line (or the file's end)
    // follows them; when the next header follows directly, they are that header's.
    if (statement.kind === 'comment') current.pendingComments ??= statement.start;
    else if (current.pendingComments !== undefined) {
      current.end = statement.start;
      current.pendingComments = undefined;
    }
  }
  if (current !== undefined && current.pendingComments !== undefined) current.end = text.length;
  close();
  return { list };
}

/** A key bare when TOML allows it, else a basic string. */
function tomlKey(key: string): string {
  return /^[A-Za-z0-9_-]+$/.test(key) ? key : tomlString(key);
}

/**
 * A basic string: JSON's escapes are TOML's (\" \\ \b \t \n \f \r \uXXXX), except that TOML also
 * wants DEL escaped and has no lone surrogates (JSON.stringify writes them as \uD8xx, which the
 * check after the edit refuses).
 */
function tomlString(value: string): string {
  return JSON.stringify(value).replace(/\u007f/g, '\\u007F');
}

function tomlValue(value: unknown): string {
  if (typeof value === 'string') return tomlString(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[${value.map(tomlValue).join(', ')}]`;
  if (isPlainObject(value)) return `{ ${Object.entries(value).map(([key, inner]) => `${tomlKey(key)} = ${tomlValue(inner)}`).join(', ')} }`;
  return '""';
}
