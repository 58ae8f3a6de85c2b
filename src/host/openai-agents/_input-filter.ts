import type { AgentInputItem, CallModelInputFilter, ModelInputData } from '@openai/agents';
import { McpctxError } from '../../errors/index.js';
import { isPlainObject } from '../../json/index.js';
import { sha256Hex } from '../../tokens/index.js';
import { shapedReport, type HostCall, type HostShaped, type HostShaper, type ShapedReport } from '../index.js';
import { readItemOutput } from './_outputs.js';
import { recentTurnsStart } from './_turns.js';

/** What the filter did with one tool output, once per call (not on every turn that shows it again). */
export interface ShapedCallReport extends ShapedReport {
  readonly callId: string;
  /** The tool's name as its server lists it (as the rules name it). */
  readonly tool: string;
  readonly server?: string;
  /** `shaped`: the output as it came, by the rules and the cap; `trimmed`: an older turn's output, over `olderOutputTokens`. */
  readonly stage: 'shaped' | 'trimmed';
}

/** How a tool the model calls by one name is named in the rules. */
export type RuledTool = string | { readonly server?: string; readonly tool: string };

export interface ShapingInputFilterOptions {
  /** The most recent turns whose outputs are never trimmed (default 2; at least 1). A turn: a user message, or one model response with its tool outputs. */
  readonly recentTurns?: number;
  /** An older output over this many o200k tokens is kept behind a handle and the model gets a preview of at most as many (default 1,000). */
  readonly olderOutputTokens?: number;
  /**
   * The tools by the name the model calls them: the server the rules name each one's by (`{
   * list_pull_requests: 'prs' }`), or `{ server, tool }` when the SDK renamed the tool
   * (`includeServerInToolNames`: `mcp_prs__list_pull_requests`). A tool not listed is matched
   * by the rules' bare tool keys only.
   */
  readonly tools?: Readonly<Record<string, RuledTool>>;
  /** Told of every tool output the filter shaped or trimmed; an exception thrown here fails the model call. */
  readonly onShaped?: (report: ShapedCallReport) => void;
}

const DEFAULT_RECENT_TURNS = 2;
const DEFAULT_OLDER_OUTPUT_TOKENS = 1000;
/** Calls whose outputs are remembered; past that the oldest is forgotten (its output shaped again if it comes back, under a new handle). */
const REMEMBERED_CALLS = 1024;

type ItemOutput = unknown;
type ResultItem = AgentInputItem & { type: 'function_call_result'; name: string; callId: string; output: ItemOutput };

interface Version {
  readonly output: ItemOutput;
  readonly fingerprint: string;
}

/** One call's output: as it came, as the rules left it (none: unchanged), and as an older turn shows it. */
interface CallEntry {
  readonly source: string;
  readonly shaped: Version | undefined;
  /** `as-is`: an older turn shows the shaped output unchanged (within olderOutputTokens, or not text). */
  older?: Version | 'as-is';
  /** Images or files: left as they came at every stage. */
  readonly opaque: boolean;
}

/**
 * A `callModelInputFilter` that applies the host rules to the tool outputs in each model input:
 * each output is shaped once, when first seen (project, format, pageTokens, the cap; over it the
 * whole output stays in the shaper's store behind a handle), and the same shaped output is given
 * on every later turn (remembered by call id and the output's hash, so nothing is offloaded
 * twice). Outputs of turns older than `recentTurns` over `olderOutputTokens` are then kept behind
 * a handle too, with a preview in their place: the JavaScript counterpart of the Python SDK's
 * ToolOutputTrimmer, counted in o200k tokens, and losing nothing (read_result reads it back).
 * read_result's own outputs are never touched: they are pages under the cap already. The SDK's
 * items are never changed: a changed output is a new item.
 */
export function shapingInputFilter(shaper: HostShaper, options: ShapingInputFilterOptions = {}): CallModelInputFilter {
  if (typeof shaper?.shapeAsync !== 'function' || typeof shaper.offloadAsync !== 'function') {
    throw new McpctxError('INVALID_ARGUMENT', 'shapingInputFilter needs a HostShaper (new HostShaper({ rules })).');
  }
  if (!isPlainObject(options)) throw new McpctxError('INVALID_ARGUMENT', 'shapingInputFilter: options must be an object: { recentTurns?, olderOutputTokens?, tools?, onShaped? }.');
  const recentTurns = positiveInteger(options.recentTurns, 'recentTurns', DEFAULT_RECENT_TURNS);
  const olderOutputTokens = positiveInteger(options.olderOutputTokens, 'olderOutputTokens', DEFAULT_OLDER_OUTPUT_TOKENS);
  const tools = checkedTools(options.tools);
  const onShaped = options.onShaped;
  if (onShaped !== undefined && typeof onShaped !== 'function') throw new McpctxError('INVALID_ARGUMENT', 'shapingInputFilter: onShaped must be a function.');
  const readResultName = typeof shaper.readResultTool.name === 'string' ? shaper.readResultTool.name : 'read_result';
  const calls = new Map<string, CallEntry>();

  const report = (item: ResultItem, call: HostCall, stage: ShapedCallReport['stage'], shaped: HostShaped): void => {
    onShaped?.({
      callId: item.callId,
      tool: call.tool,
      ...(call.server === undefined ? {} : { server: call.server }),
      stage,
      ...shapedReport(shaped),
    });
  };

  const firstSight = async (item: ResultItem, call: HostCall, source: string): Promise<CallEntry> => {
    const read = readItemOutput(item.output);
    if (!read.shapeable) return { source, shaped: undefined, opaque: true };
    const shaped = await shaper.shapeAsync(call, read.hostOutput);
    report(item, call, 'shaped', shaped);
    if (!shaped.changed) return { source, shaped: undefined, opaque: false };
    const output = read.write(shaped.output);
    return { source, shaped: { output, fingerprint: fingerprint(output) }, opaque: false };
  };

  const olderVersion = async (item: ResultItem, call: HostCall, current: ItemOutput): Promise<Version | 'as-is'> => {
    const read = readItemOutput(current);
    if (!read.shapeable) return 'as-is';
    const trimmed = await shaper.offloadAsync(call, read.hostOutput, { overTokens: olderOutputTokens });
    if (trimmed.changed || (trimmed.action === 'passed' && trimmed.tokensBefore > olderOutputTokens)) report(item, call, 'trimmed', trimmed);
    if (!trimmed.changed) return 'as-is';
    const output = read.write(trimmed.output);
    return { output, fingerprint: fingerprint(output) };
  };

  const outputOf = async (item: ResultItem, older: boolean, args: ReadonlyMap<string, Record<string, unknown>>): Promise<ItemOutput> => {
    const key = `${item.name}\u0000${item.callId}`;
    const seen = fingerprint(item.output);
    let entry = calls.get(key);
    // Given back as this filter made it (a session's history, the last run's items): as it is.
    if (entry !== undefined && typeof entry.older === 'object' && entry.older.fingerprint === seen) return item.output;
    const call = hostCall(item.name, tools, args.get(item.callId));
    if (entry === undefined || (seen !== entry.source && seen !== entry.shaped?.fingerprint)) {
      entry = await firstSight(item, call, seen);
      calls.delete(key);
      calls.set(key, entry);
      if (calls.size > REMEMBERED_CALLS) calls.delete(calls.keys().next().value as string);
    }
    const current = entry.shaped?.output ?? item.output;
    if (!older || entry.opaque) return current;
    entry.older ??= await olderVersion(item, call, current);
    return entry.older === 'as-is' ? current : entry.older.output;
  };

  const filter: CallModelInputFilter = async ({ modelData }): Promise<ModelInputData> => {
    const items = modelData.input;
    const olderThan = recentTurnsStart(items, recentTurns);
    const args = callArguments(items);
    const input: AgentInputItem[] = [];
    for (const [index, item] of items.entries()) {
      if (!isResultItem(item) || item.name === readResultName) {
        input.push(item);
        continue;
      }
      const output = await outputOf(item, index < olderThan, args);
      input.push(output === item.output ? item : ({ ...item, output } as AgentInputItem));
    }
    return { ...modelData, input };
  };
  // The filter never changes an item it is given, so the SDK need not deep-copy every output per turn.
  filter.preserveInputIdentity = true;
  return filter;
}

function isResultItem(item: AgentInputItem): item is ResultItem {
  return isPlainObject(item) && item.type === 'function_call_result' && typeof item.name === 'string' && typeof item.callId === 'string';
}

/** The arguments of each function call in the input, by call id (an argument text that is not a JSON object: none). */
function callArguments(items: readonly AgentInputItem[]): Map<string, Record<string, unknown>> {
  const found = new Map<string, Record<string, unknown>>();
  for (const item of items) {
    if (!isPlainObject(item) || item.type !== 'function_call' || typeof item.callId !== 'string' || typeof item.arguments !== 'string') continue;
    try {
      const parsed = JSON.parse(item.arguments) as unknown;
      if (isPlainObject(parsed)) found.set(item.callId, parsed);
    } catch {
      // Not JSON: the call is shaped without its arguments (they only name it in notes).
    }
  }
  return found;
}

function hostCall(name: string, tools: Readonly<Record<string, RuledTool>>, args: Record<string, unknown> | undefined): HostCall {
  const ruled = Object.hasOwn(tools, name) ? tools[name] : undefined;
  const named = ruled === undefined ? { tool: name } : typeof ruled === 'string' ? { tool: name, server: ruled } : { tool: ruled.tool, ...(ruled.server === undefined ? {} : { server: ruled.server }) };
  return { ...named, ...(args === undefined ? {} : { arguments: args }) };
}

function fingerprint(output: ItemOutput): string {
  return sha256Hex(typeof output === 'string' ? `s${output}` : `j${JSON.stringify(output) ?? ''}`);
}

function positiveInteger(value: unknown, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) throw new McpctxError('INVALID_ARGUMENT', `shapingInputFilter: ${name} must be a positive integer.`);
  return value;
}

function checkedTools(value: unknown): Readonly<Record<string, RuledTool>> {
  if (value === undefined) return {};
  const bad = (): never => {
    throw new McpctxError('INVALID_ARGUMENT', 'shapingInputFilter: tools maps a tool name to its server\'s name or to { server?, tool }.');
  };
  if (!isPlainObject(value)) return bad();
  for (const ruled of Object.values(value)) {
    const ok =
      (typeof ruled === 'string' && ruled !== '') ||
      (isPlainObject(ruled) && typeof ruled.tool === 'string' && ruled.tool !== '' && (ruled.server === undefined || (typeof ruled.server === 'string' && ruled.server !== '')));
    if (!ok) bad();
  }
  return value as Readonly<Record<string, RuledTool>>;
}
