import { McpctxError } from '../errors/index.js';
import type { Provider } from '../providers/index.js';
import { distractorKinds } from './_catalogs.js';
import type { EmbeddingsRetrieverOptions } from './retrieval/index.js';
import { plannedCalls, runModel, type ModelRunFailure } from './_model-run.js';
import type { EmbeddedText, RecallCell, RetrievalRow, Retriever } from './retrieval/index.js';
import { configuredRetrievers, routingCatalogs, runRetrieval } from './_retrieval-run.js';
import { accuracyTable, type AccuracyCell, type ModelRow } from './_score.js';
import { callTimeTable, type CallTimeCell } from './_call-time.js';
import { MAX_ROUTING_REPEAT, loadRoutingTools } from './config/index.js';
import { catalogCosts, type CatalogCost } from './_catalog-cost.js';
import { findPrice } from '../pricing/index.js';
import { routingSpend, type RoutingSpend } from './_spend.js';
import type { Condition, DistractorKind, ProtocolName, RequestCatalog, RoutingConfig, RoutingRequest, RoutingTools } from './_types.js';

export interface RoutingRunOptions extends EmbeddingsRetrieverOptions {
  config: RoutingConfig;
  /** The tools, when already loaded; default: loaded from the config's sources. */
  tools?: RoutingTools;
  /** Default: the retrievers the config lists. */
  retrievers?: readonly Retriever[];
  /** A model to route with; without one the run is retrieval only (offline). */
  provider?: Provider;
  /** The model name sent to the provider; required with a provider. */
  model?: string;
  /** `--repeat`: times each request is asked per protocol and condition, over the config's `repeat`. */
  repeat?: number;
  /** Called after each model answer (progress on a terminal). */
  onAnswer?: (done: number, total: number) => void;
  /** `--max-usd`: stop before a model call whose worst case would pass this many USD (needs the model's price). */
  maxUsd?: number;
  /** `--resume`: a stopped run (its receipt, verified) whose answers are used again instead of asked again. */
  resume?: Pick<RoutingRun, 'answers' | 'model' | 'seed' | 'repeat'>;
}

/** Everything a run decides and finds: the catalogs each request saw, where each retriever ranked its tool, and (with a model) every answer scored. */
export interface RoutingRun {
  readonly seed: number;
  readonly sizes: readonly number[];
  readonly kinds: readonly DistractorKind[];
  readonly recallAt: readonly number[];
  readonly topK: number;
  readonly protocols: readonly ProtocolName[];
  /** Times the model was asked each request per protocol and condition. */
  readonly repeat: number;
  /** Every tool definition used, as routing read it. */
  readonly tools: RoutingTools;
  readonly requests: readonly RoutingRequest[];
  readonly conditions: readonly Condition[];
  /** o200k tokens of each condition's catalog as each protocol renders it (domain tools first), needing no model. */
  readonly catalogCosts: readonly CatalogCost[];
  readonly catalogs: readonly RequestCatalog[];
  readonly retrieval: readonly RetrievalRow[];
  readonly recall: readonly RecallCell[];
  /** Every text the embeddings retriever embedded and its vector (empty without it): verify ranks again from them. */
  readonly embeddings: readonly EmbeddedText[];
  /** The provider and model that answered; null for an offline run. */
  readonly model: { readonly provider: string; readonly baseUrl: string | null; readonly name: string } | null;
  readonly answers: readonly ModelRow[];
  /** Per condition with every request answered (a condition a failure cut short is left out). */
  readonly accuracy: readonly AccuracyCell[];
  /** Model-call wall-clock per condition answered in full (absent in receipts from before timings were recorded). */
  readonly callTimes?: readonly CallTimeCell[];
  /** Why the model run stopped early, or null: the answers before it are kept. */
  readonly failure: ModelRunFailure | null;
  /** What the answers cost at the model's price, per cell and run; null for an offline run. */
  readonly spend: RoutingSpend | null;
}

/**
 * A routing run: loads the tools, builds every condition's catalogs with the config's seed, ranks
 * them with every retriever, and, given a provider, asks the model every request under every
 * protocol and scores the answers. The same config and seed give the same catalogs and rankings,
 * byte for byte (embeddings: as far as the endpoint's vectors repeat).
 */
export async function runRouting(options: RoutingRunOptions): Promise<RoutingRun> {
  const repeat = options.repeat ?? options.config.repeat ?? 1;
  if (!Number.isInteger(repeat) || repeat < 1 || repeat > MAX_ROUTING_REPEAT) throw new McpctxError('USAGE', `repeat must be an integer from 1 to ${MAX_ROUTING_REPEAT}, got ${repeat}`);
  const config: RoutingConfig = { ...options.config, repeat };
  const { provider } = options;
  if (provider !== undefined && (options.model === undefined || options.model === '')) {
    throw new McpctxError('USAGE', 'a model name is required with a provider (--model)');
  }
  const tools = options.tools ?? (await loadRoutingTools(config));
  const { conditions, catalogs } = routingCatalogs(config, tools);
  const retrievers = options.retrievers ?? configuredRetrievers(config, options);
  const retrieval = await runRetrieval(config, tools, conditions, retrievers);
  let answers: ModelRow[] = [];
  let failure: ModelRunFailure | null = null;
  const price = provider === undefined ? null : findPrice(provider.name, options.model!, config.prices);
  if (provider !== undefined && options.maxUsd !== undefined && price === null) {
    throw new McpctxError('USAGE', `--max-usd needs the price of ${provider.name} ${JSON.stringify(options.model)}, and none is known: the bundled price table does not list it; give it in the config's prices: (provider, model, inputPerMTok, outputPerMTok, cacheReadPerMTok, cacheWritePerMTok, readOn, source)`);
  }
  if (options.resume !== undefined) checkResumable(options.resume, { provider, model: options.model, seed: config.seed, repeat });
  if (provider !== undefined) {
    const calls = plannedCalls({ config, tools, conditions, catalogs, retrieval: retrieval.rows, model: options.model! });
    ({ rows: answers, failure } = await runModel(calls, {
      provider,
      ...(options.onAnswer ? { onAnswer: options.onAnswer } : {}),
      ...(options.maxUsd !== undefined && price !== null ? { budget: { maxUsd: options.maxUsd, price } } : {}),
      ...(options.resume === undefined ? {} : { earlier: options.resume.answers }),
    }));
  }
  return {
    seed: config.seed,
    sizes: config.sizes,
    kinds: distractorKinds(config),
    recallAt: config.retrieval.recallAt,
    topK: config.retrieval.topK,
    protocols: config.protocols,
    repeat,
    tools,
    requests: config.requests,
    conditions,
    catalogCosts: catalogCosts(conditions, tools),
    catalogs,
    retrieval: retrieval.rows,
    recall: retrieval.recall,
    embeddings: retrieval.embeddings,
    model: provider === undefined ? null : { provider: provider.name, baseUrl: provider.baseUrl, name: options.model! },
    answers,
    accuracy: accuracyTable(answers, config.requests.length * repeat),
    callTimes: callTimeTable(answers, config.requests.length * repeat),
    failure,
    spend: provider === undefined ? null : routingSpend(answers, price, options.maxUsd ?? null),
  };
}

/** A stopped run is carried on only by the same provider, model, seed and repeat (each answer's request body is checked as it is used). */
function checkResumable(stopped: NonNullable<RoutingRunOptions['resume']>, run: { provider: Provider | undefined; model: string | undefined; seed: number; repeat: number }): void {
  const differences: string[] = [];
  if (run.provider === undefined) differences.push('this run has no model (--provider, --model)');
  else if (stopped.model === null) differences.push('the stopped run had no model');
  else {
    if (stopped.model.provider !== run.provider.name) differences.push(`provider: stopped ${stopped.model.provider}, now ${run.provider.name}`);
    if (stopped.model.name !== run.model) differences.push(`model: stopped ${JSON.stringify(stopped.model.name)}, now ${JSON.stringify(run.model)}`);
    if (stopped.model.baseUrl !== run.provider.baseUrl) differences.push(`base URL: stopped ${JSON.stringify(stopped.model.baseUrl)}, now ${JSON.stringify(run.provider.baseUrl)}`);
  }
  if (stopped.seed !== run.seed) differences.push(`seed: stopped ${stopped.seed}, now ${run.seed}`);
  if (stopped.repeat !== run.repeat) differences.push(`repeat: stopped ${stopped.repeat}, now ${run.repeat}`);
  if (differences.length > 0) throw new McpctxError('RESUME_MISMATCH', `--resume: the stopped run differs from this one: ${differences.join('; ')}`, { differences });
}
