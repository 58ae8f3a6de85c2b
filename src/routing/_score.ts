import type { ContentBlock, StopReason, Usage } from '../providers/index.js';
import { wilsonInterval } from '../stats/index.js';
import type { DistractorKind, ProtocolName } from './_types.js';
import type { CallTiming } from './_call-time.js';

/**
 * How one answer is scored. `right`: the right tool, or no tool when none was needed.
 * `wrong_tool`: a tool call, to another tool. `no_tool`: no tool call (a text answer, a declined
 * or invalid choice) when a tool was needed; counted apart from a wrong tool, because in an agent
 * loop it ends the turn with an answer nobody looked up. `wrong_call`: a tool call when none was needed.
 */
export type Outcome = 'right' | 'wrong_tool' | 'no_tool' | 'wrong_call';
export const OUTCOMES: readonly Outcome[] = ['right', 'wrong_tool', 'no_tool', 'wrong_call'];

export function outcomeOf(expected: string | null, chosen: string | null): Outcome {
  if (expected === null) return chosen === null ? 'right' : 'wrong_call';
  if (chosen === null) return 'no_tool';
  return chosen === expected ? 'right' : 'wrong_tool';
}

/** One model answer of a run: what was asked, offered and answered, and its score. */
export interface ModelRow {
  readonly protocol: ProtocolName;
  /** The retriever that chose the offered tools (retrieval protocol), else null. */
  readonly retriever: string | null;
  readonly kind: DistractorKind;
  readonly size: number;
  readonly requestId: string;
  /** 1..repeat (absent in receipts from before repetitions: 1). */
  readonly repetition?: number;
  readonly expected: string | null;
  /** The tools offered, in the order the model saw them. */
  readonly offered: readonly string[];
  /** sha256 of the request body as sent (the provider's own bytes). */
  readonly requestSha256: string;
  /** The request body as sent: verify rebuilds it from the settings, the offered tools and the request. */
  readonly requestBody: string;
  /** The answer: text and tool_use blocks as the provider returned them. */
  readonly content: readonly ContentBlock[];
  /** The response body as received (for a stream, the whole event stream). */
  readonly rawResponse: string;
  readonly stopReason: StopReason;
  readonly usage: Usage;
  /** Prompt tokens the provider counted: input plus cache reads and writes. */
  readonly promptTokens: number;
  /** o200k tokens of the catalog as rendered for this protocol (tools field JSON, or the choice listing). */
  readonly catalogTokens: number;
  /** Server-reported time to the first token (ms), null where the API reports none. */
  readonly firstTokenMs: number | null;
  readonly chosen: string | null;
  /** A constrained answer that was not one of the offered names (scored as no tool). */
  readonly invalid: boolean;
  readonly outcome: Outcome;
  /** When the call's attempts ran (absent in receipts from before timings were recorded). */
  readonly call?: CallTiming;
}

/** Accuracy and cost of one protocol (and retriever) in one condition. */
export interface AccuracyCell {
  readonly protocol: ProtocolName;
  readonly retriever: string | null;
  readonly kind: DistractorKind;
  readonly size: number;
  readonly requests: number;
  readonly counts: Readonly<Record<Outcome, number>>;
  readonly invalid: number;
  readonly accuracy: number;
  /** Answers to requests with a right tool whose right tool was among the offered (all of them but under retrieval). */
  readonly rightToolOffered: number;
  /** Of those, the answers that chose it: accuracy given the right tool was offered is this over `rightToolOffered`. */
  readonly rightWhenOffered: number;
  /** 95% Wilson interval of the accuracy. */
  readonly low: number;
  readonly high: number;
  readonly tools: number;
  readonly meanPromptTokens: number;
  readonly meanCatalogTokens: number;
  /** Mean o200k tokens per offered tool of the rendered catalog. */
  readonly tokensPerTool: number;
  /** Mean server-reported time to first token; null when no answer reported one. */
  readonly meanFirstTokenMs: number | null;
}

const round = (value: number, places = 4): number => Math.round(value * 10 ** places) / 10 ** places;
const mean = (values: readonly number[]): number => values.reduce((sum, value) => sum + value, 0) / values.length;

/**
 * The accuracy table, computed from the rows alone (verify recomputes it so), in the rows'
 * first-seen order. With `requestsPerCondition` (requests × repeat), a condition with fewer answers (a run stopped
 * by a provider error) is left out: a partly answered condition is not comparable with the others.
 */
export function accuracyTable(rows: readonly ModelRow[], requestsPerCondition?: number): AccuracyCell[] {
  const groups = new Map<string, ModelRow[]>();
  for (const row of rows) {
    const key = JSON.stringify([row.protocol, row.retriever, row.kind, row.size]);
    groups.set(key, [...(groups.get(key) ?? []), row]);
  }
  const complete = [...groups.values()].filter((group) => requestsPerCondition === undefined || group.length === requestsPerCondition);
  return complete.map((group) => {
    const first = group[0]!;
    const counts = Object.fromEntries(OUTCOMES.map((outcome) => [outcome, group.filter((row) => row.outcome === outcome).length])) as Record<Outcome, number>;
    const interval = wilsonInterval(counts.right, group.length)!;
    const firstTokens = group.map((row) => row.firstTokenMs).filter((value): value is number => value !== null);
    const tools = mean(group.map((row) => row.offered.length));
    const catalogTokens = mean(group.map((row) => row.catalogTokens));
    // A retriever that missed the right tool caps the model: its accuracy is told apart from the model's.
    const offeredRight = group.filter((row) => row.expected !== null && row.offered.includes(row.expected));
    return {
      protocol: first.protocol,
      retriever: first.retriever,
      kind: first.kind,
      size: first.size,
      requests: group.length,
      counts,
      invalid: group.filter((row) => row.invalid).length,
      accuracy: round(counts.right / group.length),
      rightToolOffered: offeredRight.length,
      rightWhenOffered: offeredRight.filter((row) => row.outcome === 'right').length,
      low: round(interval.low),
      high: round(interval.high),
      tools: round(tools, 2),
      meanPromptTokens: round(mean(group.map((row) => row.promptTokens)), 1),
      meanCatalogTokens: round(catalogTokens, 1),
      tokensPerTool: tools === 0 ? 0 : round(catalogTokens / tools, 1),
      meanFirstTokenMs: firstTokens.length === 0 ? null : round(mean(firstTokens), 1),
    };
  });
}
