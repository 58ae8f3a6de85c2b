import type { ReceiptAction } from '../receipts/index.js';
import type { ResultContext, ShapeOutcome } from '../results/index.js';
import type { ArgumentChecker } from '../trust/index.js';
import type { ClientCall, SessionContext } from './_context.js';
import type { JsonObject } from '../../json/index.js';

/** A trust gate that held a tool back when the catalog was built, and why (the refusal's words). */
export interface HeldBack {
  readonly by: 'pins' | 'scan';
  readonly reason: string;
}

/** The tool a `tools/call` names, as the session found it in its catalog before any check. */
export interface CallTarget {
  /** The name the client called. */
  readonly name: string;
  readonly upstream: string;
  readonly ownName: string;
  /** The definition the client was shown; {} for a tool the client was not shown. */
  readonly definition: JsonObject;
  /** The definition as its upstream sent it, before any rule; {} for a tool the client was not shown. */
  readonly upstreamDefinition: JsonObject;
  /**
   * How the upstreams' last lists had it: in the catalog, left out because the config denies it,
   * held back by a trust gate, not listed at all (hidden, not removed: relayed if no check refuses),
   * or unavailable: its upstream's catalog could not be used, or two tools would share its name.
   */
  readonly listing: 'listed' | 'denied' | 'held' | 'unlisted' | 'unavailable';
  /** With listing 'held': which gate held it and why. */
  readonly held: HeldBack | undefined;
  /** With listing 'unavailable': why. */
  readonly unavailable?: string;
  /** With listing 'unlisted': the listed tool the name folds onto (case, separators, look-alikes), if any. */
  readonly lookAlikeOf: string | undefined;
}

/** One `tools/call` on its way through the checks. */
export interface ToolCall extends ClientCall {
  /** The call's arguments when they are an object. */
  readonly args: JsonObject | undefined;
  readonly context: SessionContext;
  /** The argument checks against the schemas of the catalog the call was resolved in. */
  readonly checker: ArgumentChecker;
  /** What shaping a result of this tool needs (its rules, the cap, offload). */
  readonly results: ResultContext;
  /** One line on the gateway's stderr, said once per session for each key. */
  sayOnce(key: string, line: string): void;
}

/** How a call ends: its result, the receipt's action, and the tokens on both sides. */
export type CallOutcome = ShapeOutcome | { result: JsonObject; action: ReceiptAction; upstreamTokens: number; deliveredTokens: number; note?: string };

/**
 * One step a call passes before the relay (`checks/`): an outcome ends the call there (a refusal,
 * or a page continued from the store), undefined lets it go on to the next step.
 */
export type CallCheck = (target: CallTarget, call: ToolCall) => CallOutcome | undefined | Promise<CallOutcome | undefined>;
