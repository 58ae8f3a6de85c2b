import { McpctxError } from '../errors/index.js';
import { isPlainObject } from '../json/index.js';
import { countTokens, countTokensAsync } from '../tokens/index.js';
import { toolErrorFrom, toolResultCost } from '../shape/index.js';
import { applyToolRules, type ToolChange } from '../gateway/catalog/index.js';
import type { ConfigRules, ToolRules } from '../gateway/config/index.js';
import { o200kCapOf } from '../tokens/index.js';
import { ResultShaper, createMemoryStore, type OffloadStore, type ResultAction, type ResultContext, type ShapeOutcome } from '../gateway/results/index.js';
import { readHostOutput, resultText, writeHostOutput, type HostForm, type HostNotice, type ReadOutput } from './_forms.js';
import { randomBytes } from 'node:crypto';
import { defineHostRules, hostRuleSet, isDefinedHostRules, type HostRules, type HostRulesInput } from './_rules.js';

/** One tool call as the host names it. */
export interface HostCall {
  /** The tool's own name, as its server lists it. */
  readonly tool: string;
  /** The server's name in the host's config; without it only bare rule keys (`list_*`) apply. */
  readonly server?: string;
  /** The call's arguments (they bind nothing here; kept for the note). */
  readonly arguments?: Readonly<Record<string, unknown>>;
}

/** What the shaper did with one result. */
export interface HostShaped {
  readonly form: HostForm;
  /** Whether the host gave the result as a JSON string (and `output` is one too). */
  readonly encoded: boolean;
  /** What to give the model, in the form the host handed over; the very value given when `changed` is false. */
  readonly output: unknown;
  readonly changed: boolean;
  /** The gateway's actions, `host-notice` (the host's own limit fired first: passed through) or `not-a-result`. */
  readonly action: ResultAction | 'host-notice' | 'not-a-result';
  /** o200k tokens of what the model would have received: the string as given, or the result's text and fields (a structured copy of the text counted once). */
  readonly tokensBefore: number;
  /** o200k tokens of `output`, counted the same way. */
  readonly tokensAfter: number;
  /** The handle of the stored result, when it was kept behind one. */
  readonly handle?: string;
  /** The host's notice, when its limit fired before this hook saw the result. */
  readonly notice?: HostNotice;
  /** What was done and why (which list the rules read, why a rule did not apply). */
  readonly note?: string;
}

/** What an adapter reports of one result it handed to the shaper: HostShaped without the output. */
export type ShapedReport = Pick<HostShaped, 'action' | 'changed' | 'tokensBefore' | 'tokensAfter' | 'handle' | 'notice' | 'note'>;

/** The report of one shaped result (for an adapter's onShaped), its absent fields left out. */
export function shapedReport(shaped: HostShaped): ShapedReport {
  return {
    action: shaped.action,
    changed: shaped.changed,
    tokensBefore: shaped.tokensBefore,
    tokensAfter: shaped.tokensAfter,
    ...(shaped.handle === undefined ? {} : { handle: shaped.handle }),
    ...(shaped.notice === undefined ? {} : { notice: shaped.notice }),
    ...(shaped.note === undefined ? {} : { note: shaped.note }),
  };
}

export interface HostShaperOptions {
  /** The rules (checked by `defineHostRules` when given as a plain object); none: only the cap applies. */
  readonly rules?: HostRules | HostRulesInput;
  /** Where results over the cap are kept: default in memory (one hour, 128 MiB); `createFileStore` for a 0600 folder several processes share. */
  readonly store?: OffloadStore;
  /** HMAC key of handles and cursors (at least 16 bytes): required to read a handle in another process. Default: random per shaper. */
  readonly key?: Uint8Array;
  /** What handles are bound to: a handle issued under one session id is refused under another. Default: random per shaper. */
  readonly sessionId?: string;
}

/** read_result's answer: the CallToolResult, its text, and whether it is a refusal. */
export interface HostReadResult {
  readonly result: Record<string, unknown>;
  readonly text: string;
  readonly isError: boolean;
  readonly tokens: number;
}

const HANDLE = /^\{"handle":"([A-Za-z0-9_-]+)"/;

/**
 * The gateway's result rules in a host: the rules of the gateway's `tools:` entries (project,
 * records, format, pageTokens, maxTokens, description rules) and its cap, applied to a result in
 * whatever form the host hands it over, by the gateway's own ResultShaper. Nothing is cut: over
 * the cap (or a tool's pageTokens) the whole result is kept in the store behind a handle and the
 * model gets a preview that says how to read on with read_result. A host's own notice ("Output
 * has been saved to ...") is passed through untouched and reported. `shape` reads and writes
 * nothing but the store it was given.
 */
export class HostShaper {
  readonly rules: HostRules;
  readonly #ruleSet: ConfigRules;
  readonly #shaper: ResultShaper;
  readonly #store: OffloadStore;
  readonly #sessionId: string;

  constructor(options: HostShaperOptions = {}) {
    if (typeof options !== 'object' || options === null) throw new McpctxError('INVALID_ARGUMENT', 'HostShaper takes an options object: { rules?, store?, key?, sessionId? }.');
    this.rules = isDefinedHostRules(options.rules) ? options.rules : defineHostRules(options.rules ?? {});
    this.#ruleSet = hostRuleSet(this.rules);
    this.#store = options.store ?? createMemoryStore();
    this.#shaper = new ResultShaper({ store: this.#store, ...(options.key === undefined ? {} : { key: options.key }) });
    if (options.sessionId !== undefined && (typeof options.sessionId !== 'string' || options.sessionId === '')) {
      throw new McpctxError('INVALID_ARGUMENT', 'HostShaper: sessionId must be a non-empty string.');
    }
    this.#sessionId = options.sessionId ?? `host-${randomBytes(12).toString('hex')}`;
  }

  /** The read_result tool's definition (name, description, inputSchema), the gateway's own. */
  get readResultTool(): Record<string, unknown> {
    return this.#shaper.readResultTool;
  }

  /** A tool's settings under the rules, by the gateway's precedence; undefined when no key matches. */
  rulesFor(call: Pick<HostCall, 'tool' | 'server'>): ToolRules | undefined {
    return this.#ruleSet.toolRules(call.server ?? '', call.tool);
  }

  /** Shapes one result, counting on the calling thread (see shapeAsync for results that may be huge). */
  shape(call: HostCall, output: unknown): HostShaped {
    const read = readHostOutput(output);
    const counted = (text: string): number => countTokens(text);
    if (read.result === undefined) return passedThrough(read, output, typeof output === 'string' ? counted(output) : 0);
    const outcome = this.#shaper.shape(read.result, call.arguments as Record<string, unknown> | undefined, this.#context(call));
    const before = typeof output === 'string' && read.form !== 'text' ? counted(output) : outcome.upstreamTokens;
    const shaped = shapedOutput(read, output, outcome);
    return { ...shaped, tokensBefore: before, tokensAfter: !shaped.changed ? before : typeof shaped.output === 'string' ? counted(shaped.output) : outcome.deliveredTokens };
  }

  /** `shape`, counting in turns that let the event loop run (a 4 MB result never stalls the host). */
  async shapeAsync(call: HostCall, output: unknown, signal?: AbortSignal): Promise<HostShaped> {
    return this.#shapeAsync(call, output, this.#context(call), signal);
  }

  /**
   * Keeps a result the model has read already behind a handle when it is over `overTokens`, the
   * tool's rules not applied again (they were when it came): how an adapter slims an older turn's
   * output. Within `overTokens`, a host's notice, or when the store cannot keep it or even a
   * preview without items is over `overTokens`, the output is given back untouched (never refused).
   */
  async offloadAsync(call: HostCall, output: unknown, options: { readonly overTokens: number; readonly signal?: AbortSignal }): Promise<HostShaped> {
    const overTokens = isPlainObject(options) ? options.overTokens : undefined;
    if (typeof overTokens !== 'number' || !Number.isSafeInteger(overTokens) || overTokens < 1) {
      throw new McpctxError('INVALID_ARGUMENT', 'HostShaper.offloadAsync: overTokens must be a positive integer (o200k tokens).');
    }
    const context: ResultContext = { ...this.#context(call), rules: undefined, capTokens: overTokens, offload: true };
    const shaped = await this.#shapeAsync(call, output, context, options.signal);
    if (shaped.action !== 'refused') return shaped;
    const why = shaped.output === undefined ? '' : resultText(readHostOutput(shaped.output).result ?? {});
    return { ...shaped, output, changed: false, action: 'passed', tokensAfter: shaped.tokensBefore, note: `kept as it was: ${why || 'it could not be stored'}` };
  }

  async #shapeAsync(call: HostCall, output: unknown, context: ResultContext, signal: AbortSignal | undefined): Promise<HostShaped> {
    const counted = (text: string): Promise<number> => countTokensAsync(text, signal === undefined ? {} : { signal });
    const read = readHostOutput(output);
    if (read.result === undefined) return passedThrough(read, output, typeof output === 'string' ? await counted(output) : 0);
    const outcome = await this.#shaper.shapeAsync(read.result, call.arguments as Record<string, unknown> | undefined, context, signal);
    const before = typeof output === 'string' && read.form !== 'text' ? await counted(output) : outcome.upstreamTokens;
    const shaped = shapedOutput(read, output, outcome);
    return { ...shaped, tokensBefore: before, tokensAfter: !shaped.changed ? before : typeof shaped.output === 'string' ? await counted(shaped.output) : outcome.deliveredTokens };
  }

  /** read_result({ handle, cursor?, path?, query? }) over what this shaper's store keeps. A malformed call throws INVALID_ARGUMENT. */
  readResult(args: unknown): HostReadResult {
    if (!isPlainObject(args)) throw new McpctxError('INVALID_ARGUMENT', 'read_result takes an object: { handle, cursor?, path?, query? }.');
    let outcome: ShapeOutcome;
    try {
      outcome = this.#shaper.readResult(args, { sessionId: this.#sessionId, capTokens: o200kCapOf(this.rules.capTokens, this.rules.claudeSafetyFactor) });
    } catch (error) {
      const result = toolErrorFrom(error);
      return { result, text: resultText(result), isError: true, tokens: toolResultCost(result).textTokens };
    }
    return { result: outcome.result, text: resultText(outcome.result), isError: outcome.result.isError === true, tokens: outcome.deliveredTokens };
  }

  /** A tool definition with its description rules applied (description, maxDescriptionTokens, drop, outputSchema), as the gateway lists it. */
  describeTool(call: Pick<HostCall, 'tool' | 'server'>, definition: Readonly<Record<string, unknown>>): { tool: Record<string, unknown>; changes: ToolChange[] } {
    const name = typeof definition.name === 'string' ? definition.name : call.tool;
    return applyToolRules(definition, name, this.rulesFor(call));
  }

  /** Releases the store. */
  close(): void {
    this.#store.close();
  }

  #context(call: HostCall): ResultContext {
    if (!isPlainObject(call) || typeof call.tool !== 'string' || call.tool === '') throw new McpctxError('INVALID_ARGUMENT', 'HostShaper: a call needs { tool, server? } with the tool\'s name.');
    return {
      sessionId: this.#sessionId,
      tool: call.server === undefined ? call.tool : `${call.server}/${call.tool}`,
      rules: this.rulesFor(call),
      capTokens: this.rules.capTokens,
      ...(this.rules.claudeSafetyFactor === undefined ? {} : { safetyFactor: this.rules.claudeSafetyFactor }),
      offload: this.rules.offload,
      pages: 'read_result',
    };
  }

}

/** The outcome in the host's form: the value given, untouched, when the rules passed it. */
function shapedOutput(read: ReadOutput, given: unknown, outcome: ShapeOutcome): Omit<HostShaped, 'tokensBefore' | 'tokensAfter'> {
  const base = { form: read.form, encoded: read.encoded, ...(outcome.note === undefined ? {} : { note: outcome.note }) };
  if (outcome.action === 'passed') return { ...base, output: given, changed: false, action: 'passed' };
  const handle = outcome.action === 'offloaded' ? HANDLE.exec(resultText(outcome.result))?.[1] : undefined;
  return { ...base, output: writeHostOutput(read, outcome.result), changed: true, action: outcome.action, ...(handle === undefined ? {} : { handle }) };
}

function passedThrough(read: ReadOutput, output: unknown, tokens: number): HostShaped {
  return {
    form: read.form,
    encoded: read.encoded,
    output,
    changed: false,
    action: read.form === 'host-notice' ? 'host-notice' : 'not-a-result',
    tokensBefore: tokens,
    tokensAfter: tokens,
    ...(read.notice === undefined ? {} : { notice: read.notice, note: `${read.notice.host}'s own limit fired before this hook: its notice is passed through untouched` }),
  };
}
