import { resolve } from 'node:path';
import type { Command } from 'commander';
import { McpctxError } from '../errors/index.js';
import {
  DEFAULT_TIMEOUT_MS,
  inspectResult,
  type ContentBlockCost,
  type ContentCost,
  type FieldCost,
  type ProjectionSuggestion,
  type ResultInspection,
  type ResultPayload,
} from '../measure/index.js';
import { DECLARABLE_CAPABILITIES, DEFAULT_PROTOCOL_VERSION } from '../mcp/index.js';
import { exampleHelp } from './_help.js';
import { EXIT, invocationOf, type CliIo } from './_io.js';
import { collectEnv, parseCapabilities, parseTimeoutMs } from './_parse.js';
import { formatCount, formatShare, renderTable } from './_table.js';

interface InspectResultFlags {
  tool: string;
  args?: string;
  json?: boolean;
  env: Record<string, string>;
  timeout: number;
  capabilities?: string[];
  protocolVersion: string;
  cwd?: string;
}

export function setupInspectResult(command: Command, io: CliIo, setExit: (code: number) => void): void {
  command
    .description(
      [
        'Launch an MCP server over stdio, initialize it, call one tool (tools/call) and count the result as it came off the wire: o200k_base tokens and UTF-8 bytes of every part that reaches the model (text blocks, embedded text resources, resource links and other blocks as JSON, structuredContent as compact JSON; images, audio and blobs by decoded bytes), and whether structuredContent repeats the content.',
        'For a JSON payload (two or more JSON text blocks read as one list, else the first JSON text block, else structuredContent): tokens per field of its records, nested objects broken down one level, fields that repeat earlier records marked copy; the characters/4 guess beside the real count; and a suggested projection (never applied, never dropping the answer, never larger than the payload) as the FieldSpec[] defineProjection takes, with the tokens it gives.',
        'The server gets a minimal environment (PATH, HOME, USER, SHELL, TERM, LANG) plus the --env values; figures are counted on the real bytes and values never appear in the output.',
        'The first line gives the status: analysed, tool-error (isError: true; its text is shown), unknown-tool, rpc-error, timeout, startup-failure, server-exited, over-limit or protocol-error. Exit codes: 0 analysed; 2 usage error; 3 any other status.',
      ].join('\n\n'),
    )
    .usage('--tool NAME [--args JSON] [options] -- <command> [args...]')
    .argument('[server...]', 'the command that starts the server, after --')
    .requiredOption('--tool <name>', 'the tool to call')
    .option('--args <json>', 'the tool arguments, a JSON object (default: {})')
    .option('--json', 'print the inspection as one JSON object')
    .option('--env <NAME=VALUE>', 'pass a variable to the server (repeatable; the value is never printed)', collectEnv, {} as Record<string, string>)
    .option('--timeout <ms>', 'one budget for start, initialize and the call', parseTimeoutMs, DEFAULT_TIMEOUT_MS)
    .option(
      '--capabilities <list>',
      `client capabilities to declare, comma-separated (${DECLARABLE_CAPABILITIES.join(', ')}) (default: none, {})`,
      parseCapabilities,
    )
    .option('--protocol-version <version>', 'protocol version to request', DEFAULT_PROTOCOL_VERSION)
    .option('--cwd <dir>', 'working directory of the server (default: the current folder)')
    .addHelpText('after', exampleHelp(io, 'inspect-result --tool echo --args \'{"message":"hello"}\' -- npx -y @modelcontextprotocol/server-everything'))
    .action(async (server: string[], flags: InspectResultFlags) => {
      setExit(await runInspectResult(server, flags, io));
    });
}

async function runInspectResult(server: string[], flags: InspectResultFlags, io: CliIo): Promise<number> {
  const [command, ...args] = server;
  if (command === undefined) {
    throw new McpctxError('USAGE', `give the server command after --, e.g. ${invocationOf(io)} inspect-result --tool search -- node server.js`);
  }
  const inspection = await inspectResult({
    launch: { command, args, cwd: flags.cwd === undefined ? io.cwd : resolve(io.cwd, flags.cwd), env: flags.env },
    tool: flags.tool,
    arguments: parseToolArguments(flags.args),
    capabilities: flags.capabilities,
    protocolVersion: flags.protocolVersion,
    timeoutMs: flags.timeout,
  });
  io.stdout.write(flags.json ? `${JSON.stringify(inspection, null, 2)}\n` : renderInspection(inspection));
  return inspection.status === 'analysed' ? EXIT.ok : EXIT.failed;
}

/** `--args`: a JSON object. The text is never echoed back: it may hold a token. */
function parseToolArguments(text: string | undefined): Record<string, unknown> {
  if (text === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new McpctxError('USAGE', `--args is not valid JSON; give a JSON object, e.g. --args '{"state":"closed"}'`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    const kind = value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
    throw new McpctxError('USAGE', `--args must be a JSON object (the tool's arguments by name), got ${kind}; e.g. --args '{"state":"closed"}'`);
  }
  return value as Record<string, unknown>;
}

function renderInspection(inspection: ResultInspection): string {
  const { content, payload, estimate, suggestion, details } = inspection;
  const out: string[] = [];
  const summary =
    content === null
      ? ''
      : `, ${formatCount(content.totalTokens)} tokens in ${plural(content.blocks.length, 'content block')}` +
        `${content.structuredTokens === null ? '' : ' and structuredContent'}${inspection.isError ? ' (isError: true)' : ''}`;
  out.push(`tool ${inspection.tool}: ${inspection.status}${summary}\n`);
  if (inspection.status !== 'analysed') out.push(`${inspection.note}\n`);
  const errorText = inspection.errorText;
  if (errorText !== null && errorText.includes('\n')) out.push(`error text:\n${indent(errorText)}\n`);
  if (details.stderrTail !== null) out.push(`server stderr (last ${details.stderrTail.length} chars):\n${indent(details.stderrTail)}\n`);
  if (content !== null) {
    out.push(`\n${contentTable(content)}`);
    if (content.binaryBytes > 0) out.push(`plus ${formatCount(content.binaryBytes)} bytes of binary data (images, audio, blobs): paid for by size, not text tokens\n`);
  }
  if (content?.structuredDuplicatesText) {
    const how =
      content.duplicateKind === 'wrapped-text'
        ? `, its text as a string under "${content.duplicateWrapperKey}": the same text`
        : content.duplicateKind === 'wrapped-json'
          ? `, wrapped in "${content.duplicateWrapperKey}": the same JSON`
          : ': the same JSON';
    out.push(
      `\nstructuredContent duplicates ${describeBlocks(content.duplicateOfBlocks)}${how} sent twice, ` +
        `the copy costs ${formatCount(content.duplicateTokens)} tokens\n`,
    );
  }
  if (payload) out.push(`\npayload: ${describePayload(payload)}, ${formatCount(payload.tokens)} tokens as compact JSON\n`);
  if (inspection.fields.length > 0) out.push(`\n${fieldTable(inspection.fields, payload?.tokens ?? 0)}`);
  if (estimate !== null) {
    out.push(
      `\nestimate: characters/4 says ${formatCount(estimate.charsOver4)} tokens (${formatCount(estimate.chars)} characters); ` +
        `the o200k count is ${formatCount(estimate.realTokens)}` +
        `${estimate.errorPercent === null ? '' : `, an error of ${estimate.errorPercent > 0 ? '+' : ''}${estimate.errorPercent.toFixed(1)}%`}\n`,
    );
  }
  if (content !== null) out.push(renderSuggestion(suggestion, payload));
  // The reason there is no suggestion was just said.
  for (const note of inspection.notes) if (note !== suggestion.note) out.push(`note: ${note}\n`);
  return out.join('');
}

function renderSuggestion(suggestion: ProjectionSuggestion, payload: ResultPayload | null): string {
  const out = ['\nSuggested projection (a suggestion, not applied):'];
  if (suggestion.tokens === null) {
    out.push(` none; ${suggestion.note ?? 'nothing to project'}\n`);
    return out.join('');
  }
  const ratio = payload && payload.tokens > 0 ? `, ${formatShare(suggestion.tokens, payload.tokens)} of the payload's ${formatCount(payload.tokens)}` : '';
  out.push(` ${formatCount(suggestion.tokens)} tokens${ratio}\n`);
  out.push(
    renderTable(
      [{ header: 'keep' }, { header: 'from' }, { header: 'why' }],
      suggestion.fields.map((field) => [field.name, field.source, field.truncatedFlag === undefined ? field.rule : `${field.rule}, flag ${field.truncatedFlag}`]),
    ),
  );
  if (suggestion.dropped.length > 0) {
    out.push('drop:\n');
    for (const [reason, paths] of groupByReason(suggestion.dropped)) out.push(`  ${paths.join(', ')}: ${reason}\n`);
  }
  const where = payload && payload.path.length > 0 ? ` to each record at ${pathText(payload.path)}` : payload?.shape === 'records' ? ' to each record' : '';
  out.push(`as code: defineProjection(${JSON.stringify(suggestion.spec)}, { sample }) from mcpctx/shape, applied${where}\n`);
  return out.join('');
}

/** A long list of blocks (a Python-SDK list sends one per item) shows its first rows and one line for the rest. */
const MAX_BLOCK_ROWS = 10;
const SHOWN_BLOCK_ROWS = 5;

function contentTable(content: ContentCost): string {
  const row = (block: ContentBlockCost): string[] => [
    `content[${block.index}]`,
    block.type,
    block.tokens === null ? 'binary' : formatCount(block.tokens),
    formatCount(block.bytes),
    block.kind === 'text' || block.kind === 'resource-text' ? (block.json ? 'yes' : 'no') : '-',
  ];
  const long = content.blocks.length > MAX_BLOCK_ROWS;
  const rows = (long ? content.blocks.slice(0, SHOWN_BLOCK_ROWS) : content.blocks).map(row);
  if (long) rows.push(restRow(content.blocks.slice(SHOWN_BLOCK_ROWS)));
  if (content.structuredTokens !== null) {
    rows.push(['structuredContent', 'json', formatCount(content.structuredTokens), formatCount(content.structuredBytes), 'yes']);
  }
  rows.push(['total', '', formatCount(content.totalTokens), formatCount(content.textBytes + (content.structuredBytes ?? 0)), '']);
  return renderTable(
    [{ header: 'part' }, { header: 'type' }, { header: 'tokens', align: 'right' }, { header: 'bytes', align: 'right' }, { header: 'JSON' }],
    rows,
  );
}

/** One row for the blocks not shown: their range, their tokens and bytes summed. */
function restRow(blocks: readonly ContentBlockCost[]): string[] {
  const types = new Set(blocks.map((block) => block.type));
  const json = blocks.filter((block) => block.json).length;
  const textual = blocks.filter((block) => block.tokens !== null);
  return [
    `${describeBlocks(blocks.map((block) => block.index))}, ${formatCount(blocks.length)} more`,
    types.size === 1 ? [...types].join('') : 'mixed',
    textual.length === 0 ? 'binary' : formatCount(textual.reduce((sum, block) => sum + (block.tokens ?? 0), 0)),
    formatCount(blocks.reduce((sum, block) => sum + block.bytes, 0)),
    json === blocks.length ? 'yes' : json === 0 ? 'no' : `${formatCount(json)} of ${formatCount(blocks.length)}`,
  ];
}

/** `content[3]`, `content[0..260]`, or for a set with gaps its count and first index. */
function describeBlocks(indices: readonly number[]): string {
  const first = indices[0];
  const last = indices[indices.length - 1];
  if (first === undefined || last === undefined) return 'no block';
  if (indices.length === 1) return `content[${first}]`;
  if (last - first + 1 === indices.length) return `content[${first}..${last}]`;
  return `${formatCount(indices.length)} blocks from content[${first}] to content[${last}]`;
}

function describePayload(payload: ResultPayload): string {
  const source =
    payload.source === 'structuredContent'
      ? 'structuredContent'
      : payload.source === 'blocks'
        ? `${describeBlocks(payload.blocks)} (${formatCount(payload.blocks.length)} JSON text blocks read as one list)`
        : describeBlocks(payload.blocks);
  const where = pathText(payload.path);
  let shape: string;
  if (payload.shape === 'records') {
    shape = payload.path.length === 0 ? `an array of ${plural(payload.records, 'record')}` : `an object whose ${where} holds ${plural(payload.records, 'record')}`;
  } else if (payload.shape === 'object') {
    shape = payload.path.length === 0 ? 'one object' : `one object under ${where}`;
  } else {
    shape = 'an array that is not a list of records';
  }
  return `${source}, ${shape}`;
}

function pathText(path: readonly string[]): string {
  return path.map((key) => JSON.stringify(key)).join('.');
}

function indent(text: string): string {
  return text
    .trimEnd()
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
}

/** Top-level fields by tokens, each with its own fields indented beneath. */
function fieldTable(fields: readonly FieldCost[], payloadTokens: number): string {
  const rows: string[][] = [];
  const row = (field: FieldCost, indent: string): string[] => [
    `${indent}${field.path}`,
    formatCount(field.tokens),
    formatShare(field.tokens, payloadTokens),
    field.repeatedTokens > 0 ? formatCount(field.repeatedTokens) : '',
    field.copy ? 'copy' : '',
  ];
  for (const top of fields.filter((field) => field.parent === null)) {
    rows.push(row(top, ''));
    for (const child of fields.filter((field) => field.parent === top.path)) rows.push(row(child, '  '));
  }
  return renderTable(
    [{ header: 'field' }, { header: 'tokens', align: 'right' }, { header: 'share', align: 'right' }, { header: 'repeated', align: 'right' }, { header: 'copy' }],
    rows,
  );
}

function groupByReason(dropped: ReadonlyArray<{ path: string; reason: string }>): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const { path, reason } of dropped) groups.set(reason, [...(groups.get(reason) ?? []), path]);
  return groups;
}

function plural(count: number, noun: string): string {
  return `${formatCount(count)} ${noun}${count === 1 ? '' : 's'}`;
}
