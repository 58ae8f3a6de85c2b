import { McpctxError } from '../errors/index.js';
import { sentRequestBody, type ChatRequest, type ChatResponse, type Provider, type ProviderName } from '../providers/index.js';
import { canonicalJson, countTokens, sha256Hex } from '../tokens/index.js';
import { usageUsd, type PriceRecord } from '../pricing/index.js';
import { checkRoutingBudget } from './_spend.js';
import { chatRequestFor, readChoice, renderedCatalog, reportedFirstTokenMs } from './_protocols.js';
import type { RetrievalRow } from './retrieval/index.js';
import { outcomeOf, type ModelRow } from './_score.js';
import type { Condition, DistractorKind, ProtocolName, RequestCatalog, RoutingConfig, RoutingRequest, RoutingTool, RoutingTools } from './_types.js';

/** One call a run makes: which protocol, condition and request, the tools offered in order, and the chat request. */
export interface PlannedCall {
  readonly protocol: ProtocolName;
  readonly retriever: string | null;
  readonly kind: DistractorKind;
  readonly size: number;
  readonly request: RoutingRequest;
  /** 1..repeat: the same request asked again, the same chat request each time. */
  readonly repetition: number;
  readonly offered: readonly RoutingTool[];
  readonly chat: ChatRequest;
}

export interface PlanInput {
  readonly config: RoutingConfig;
  readonly tools: RoutingTools;
  readonly conditions: readonly Condition[];
  readonly catalogs: readonly RequestCatalog[];
  readonly retrieval: readonly RetrievalRow[];
  readonly model: string;
}

/**
 * Every call of a run, in a fixed order (protocol, retriever, kind, size, request, repetition:
 * `config.repeat` times, default 1, one after the other). Native and
 * constrained offer the request's own seeded order of its condition's catalog; retrieval offers
 * each retriever's top k for the request, best first. Deterministic: a scripted provider's turns
 * can be recorded against exactly these requests.
 */
export function plannedCalls(input: PlanInput): PlannedCall[] {
  const { config, tools, model } = input;
  const byName = new Map([...tools.domain, ...tools.unrelated, ...tools.confusable].map((tool) => [tool.name, tool]));
  const named = (names: readonly string[]): RoutingTool[] => names.map((name) => byName.get(name)!);
  const catalogOf = new Map(input.catalogs.map((catalog) => [`${catalog.kind}:${catalog.size}:${catalog.requestId}`, catalog.order]));
  const rankingOf = new Map(input.retrieval.map((row) => [`${row.retriever}:${row.kind}:${row.size}:${row.requestId}`, row.top]));
  const retrievers = [...new Set(input.retrieval.map((row) => row.retriever))];
  const calls: PlannedCall[] = [];
  for (const protocol of config.protocols) {
    for (const retriever of protocol === 'retrieval' ? retrievers : [null]) {
      for (const condition of input.conditions) {
        for (const request of config.requests) {
          const key = `${condition.kind}:${condition.size}:${request.id}`;
          const names = retriever === null ? catalogOf.get(key)! : rankingOf.get(`${retriever}:${key}`)!.slice(0, config.retrieval.topK);
          const offered = named(names);
          const chat = chatRequestFor(protocol, model, request.text, offered, config.model);
          for (let repetition = 1; repetition <= (config.repeat ?? 1); repetition++) {
            calls.push({ protocol, retriever, kind: condition.kind, size: condition.size, request, repetition, offered, chat });
          }
        }
      }
    }
  }
  return calls;
}

export interface ModelRunOptions {
  provider: Provider;
  /** `--max-usd` and the price it is reckoned at: the run stops (BUDGET_STOP) before a call whose worst case would pass it. */
  budget?: { maxUsd: number; price: PriceRecord };
  /** Called after each answer, for progress on a terminal. */
  onAnswer?: (done: number, total: number) => void;
  /**
   * `--resume`: the answers a stopped run already paid for, in plan order. Each is used again,
   * not asked again, when its recorded request body is the one this call would send; any other
   * body means the plan changed, and the run stops (RESUME_MISMATCH) before a call.
   */
  earlier?: readonly ModelRow[];
}

/** Why a model run stopped before its last call: the provider's error and the call it failed on. */
export interface ModelRunFailure {
  readonly code: string;
  readonly message: string;
  /** 0-based index of the failed call among the planned calls. */
  readonly call: number;
  readonly protocol: ProtocolName;
  readonly retriever: string | null;
  readonly kind: DistractorKind;
  readonly size: number;
  readonly requestId: string;
}

export interface ModelRunResult {
  readonly rows: ModelRow[];
  /** Set when a provider error (after its retries) stopped the run; the rows before it are kept. */
  readonly failure: ModelRunFailure | null;
}

/**
 * Sends every planned call, one at a time, and scores each answer. A provider error (an
 * McpctxError: after its retries, a missing key, no scripted turn) stops the run there, and the
 * answers so far are returned with the failure: a long paid run keeps what it bought. Anything
 * else is a bug and is thrown.
 */
export async function runModel(calls: readonly PlannedCall[], options: ModelRunOptions): Promise<ModelRunResult> {
  const rows: ModelRow[] = [];
  const catalogTokens = new Map<string, number>();
  let spent = 0;
  const earlier = options.earlier ?? [];
  if (earlier.length > calls.length) throw new McpctxError('RESUME_MISMATCH', `the stopped run has ${earlier.length} answers, but this run plans ${calls.length} calls`);
  for (const [index, call] of calls.entries()) {
    const paid = earlier[index];
    if (paid !== undefined) {
      checkSameRequest(paid, call, index, options.provider.name);
      rows.push(paid);
      if (options.budget !== undefined) spent += usageUsd(paid.usage, options.budget.price) ?? 0;
      options.onAnswer?.(rows.length, calls.length);
      continue;
    }
    let response: ChatResponse & { usage: NonNullable<ChatResponse['usage']> };
    try {
      if (options.budget !== undefined) checkRoutingBudget(call.chat, options.provider.name, options.budget.price, spent, options.budget.maxUsd);
      const answered = await options.provider.chat(call.chat);
      // Prompt tokens are one of routing's figures: a call whose usage is unknown stops the run as before.
      if (answered.usage === null) throw new McpctxError('PROVIDER_ERROR', 'the provider reported no usage for this call, so its prompt tokens are unknown');
      response = { ...answered, usage: answered.usage };
    } catch (error) {
      if (!(error instanceof McpctxError)) throw error;
      const { protocol, retriever, kind, size } = call;
      return { rows, failure: { code: error.code, message: error.message, call: index, protocol, retriever, kind, size, requestId: call.request.id } };
    }
    const offered = call.offered.map((tool) => tool.name);
    const rendered = renderedCatalog(call.protocol, call.offered);
    let tokens = catalogTokens.get(rendered);
    if (tokens === undefined) {
      tokens = countTokens(rendered);
      catalogTokens.set(rendered, tokens);
    }
    const { chosen, invalid } = readChoice(call.protocol, response, offered);
    const { usage } = response;
    if (options.budget !== undefined) spent += usageUsd(usage, options.budget.price) ?? 0;
    rows.push({
      protocol: call.protocol,
      retriever: call.retriever,
      kind: call.kind,
      size: call.size,
      requestId: call.request.id,
      repetition: call.repetition,
      expected: call.request.tool,
      offered,
      requestSha256: sha256Hex(response.raw.request),
      requestBody: response.raw.request,
      content: response.content,
      rawResponse: response.raw.response,
      stopReason: response.stopReason,
      usage,
      promptTokens: usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens,
      catalogTokens: tokens,
      firstTokenMs: reportedFirstTokenMs(response.raw.response),
      chosen,
      invalid,
      outcome: outcomeOf(call.request.tool, chosen),
      call: { timing: response.timing, retries: response.retries.map((retry) => ({ status: retry.raw.status, timing: retry.timing, raw: retry.raw, rawRequestSha256: retry.rawRequestSha256, rawResponseSha256: retry.rawResponseSha256 })) },
    });
    options.onAnswer?.(rows.length, calls.length);
  }
  return { rows, failure: null };
}

/** A recorded answer stands for this call only when its request body is the one this call would send. */
function checkSameRequest(paid: ModelRow, call: PlannedCall, index: number, provider: ProviderName): void {
  let recorded: unknown;
  try {
    recorded = JSON.parse(paid.requestBody) as unknown;
  } catch {
    recorded = undefined;
  }
  const planned = sentRequestBody(provider, call.chat);
  if (recorded !== undefined && canonicalJson(recorded) === canonicalJson(planned)) return;
  throw new McpctxError('RESUME_MISMATCH', `--resume: answer ${index + 1} of the stopped run (request ${JSON.stringify(paid.requestId)}, ${paid.protocol}, ${paid.kind}, size ${paid.size}) was asked with another request body than this run's call ${index + 1} (${call.protocol}, ${call.kind}, size ${call.size}): the config, seed, tools or model differ`, {
    differences: [`answers[${index}].requestBody`],
  });
}
