/**
 * What model calls cost: a price table (prices.json, each entry dated and sourced), a config's
 * own prices over it, and the USD of a usage at a price. A model with no price is unknown, never
 * free: a spend is a number only when every call in it was priced and its usage reported.
 */
import table from './prices.json' with { type: 'json' };
import { McpctxError } from '../errors/index.js';
import type { ProviderName, Usage } from '../providers/index.js';

/** USD per million tokens of each kind, and where and when the figures were read. */
export interface PriceFigures {
  inputPerMTok: number;
  outputPerMTok: number;
  /** A prompt-cache hit. */
  cacheReadPerMTok: number;
  /** A prompt-cache write (Anthropic's 5-minute TTL, the default). */
  cacheWritePerMTok: number;
  /** YYYY-MM-DD: the day the figures were read from `source`. */
  readOn: string;
  /** Where they were read: the vendor's pricing page, or what the config's author says. */
  source: string;
}

/** One model's price as a config gives it (`prices:`), for the model id exactly. */
export interface ModelPrice extends PriceFigures {
  provider: ProviderName;
  model: string;
}

/** The price a run used, as its receipt records it: the run's model, the figures, and whether they came from the bundled table or the config. */
export interface PriceRecord extends ModelPrice {
  from: 'table' | 'config';
}

interface TableEntry extends PriceFigures {
  provider: ProviderName;
  name: string;
  /** The model ids (dated snapshots and aliases) the entry prices; matched exactly. */
  models: string[];
}

/** The bundled price table, entries in the file's order. */
export const PRICE_TABLE: readonly TableEntry[] = (table as { entries: TableEntry[] }).entries;

/**
 * The price of `model` on `provider`: the config's entry for it when one is given, else the
 * table's (exact model id), else null (unknown). The scripted provider and a local server are
 * never in the table: their price is the config's or unknown.
 */
export function findPrice(provider: ProviderName, model: string, configured: readonly ModelPrice[] = []): PriceRecord | null {
  const own = configured.find((entry) => entry.provider === provider && entry.model === model);
  if (own !== undefined) return { ...figuresOf(own), provider, model, from: 'config' };
  const listed = PRICE_TABLE.find((entry) => entry.provider === provider && entry.models.includes(model));
  if (listed !== undefined) return { ...figuresOf(listed), provider, model, from: 'table' };
  return null;
}

function figuresOf(entry: PriceFigures): PriceFigures {
  return {
    inputPerMTok: entry.inputPerMTok,
    outputPerMTok: entry.outputPerMTok,
    cacheReadPerMTok: entry.cacheReadPerMTok,
    cacheWritePerMTok: entry.cacheWritePerMTok,
    readOn: entry.readOn,
    source: entry.source,
  };
}

/** USD of one call's usage at `price`; null when either is unknown. One formula, so a verifier recomputes the same float. */
export function usageUsd(usage: Usage | null, price: PriceFigures | null): number | null {
  if (usage === null || price === null) return null;
  const microDollars =
    usage.inputTokens * price.inputPerMTok + usage.outputTokens * price.outputPerMTok + usage.cacheReadTokens * price.cacheReadPerMTok + usage.cacheWriteTokens * price.cacheWritePerMTok;
  return microDollars / 1_000_000;
}

/**
 * Tokens the provider may bill for reading a request beyond its body: the tool-use system prompt
 * Anthropic adds when tools are offered (a few hundred tokens per its docs), with room to spare.
 */
export const REQUEST_OVERHEAD_TOKENS = 1_000;

/**
 * The most one call can cost, for a budget that must never guess low: its request body's UTF-8
 * bytes plus REQUEST_OVERHEAD_TOKENS as the tokens read (a byte-level tokenizer never makes more
 * tokens than bytes, whatever the model's tokenizer; an o200k count can be below a newer Claude
 * tokenizer's), each at the dearer of the input and cache-write prices, and `maxTokens` written.
 */
export function worstCaseUsd(requestBody: string, maxTokens: number, price: PriceFigures): { usd: number; readTokens: number } {
  const readTokens = Buffer.byteLength(requestBody, 'utf8') + REQUEST_OVERHEAD_TOKENS;
  const readPrice = Math.max(price.inputPerMTok, price.cacheWritePerMTok);
  return { usd: (readTokens * readPrice + maxTokens * price.outputPerMTok) / 1_000_000, readTokens };
}

/** Throws BUDGET_STOP when a call with this request body, sent after `spentUsd`, could take the spend past `maxUsd`. */
export function checkBudget(requestBody: string, maxTokens: number, price: PriceFigures, spentUsd: number, maxUsd: number): void {
  const worst = worstCaseUsd(requestBody, maxTokens, price);
  if (spentUsd + worst.usd <= maxUsd) return;
  throw new McpctxError(
    'BUDGET_STOP',
    `stopped before a model call: ${formatUsd(spentUsd)} committed so far, and this call could cost up to ${formatUsd(worst.usd)} (at most ${worst.readTokens} tokens read, max_tokens ${maxTokens} written), past --max-usd ${formatUsd(maxUsd)}`,
    { spentUsd, worstCaseUsd: worst.usd, maxUsd, readTokens: worst.readTokens, maxTokens },
  );
}

/** The sum, in order, or null when any part is unknown: a partial sum is not a spend. */
export function sumUsd(parts: readonly (number | null)[]): number | null {
  let total = 0;
  for (const part of parts) {
    if (part === null) return null;
    total += part;
  }
  return total;
}

/** `$0.012345` (six decimals: a small call costs fractions of a cent), or `unknown`. */
export function formatUsd(usd: number | null): string {
  return usd === null ? 'unknown' : `$${usd.toFixed(6)}`;
}
