/**
 * What model calls cost: a price table (prices.json, each entry dated and sourced), a config's
 * own prices over it, and the USD of a usage at a price. A model with no price is unknown, never
 * free: a spend is a number only when every call in it was priced and its usage reported.
 */
import table from './prices.json' with { type: 'json' };
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
 * The most one call can cost: every token of its request read at the input price (the dearest
 * way to read it but a cache write, which a run does not ask for) and `maxTokens` written.
 */
export function worstCaseUsd(requestTokens: number, maxTokens: number, price: PriceFigures): number {
  return (requestTokens * price.inputPerMTok + maxTokens * price.outputPerMTok) / 1_000_000;
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
