/**
 * A config's `prices:` (the experiment's and the routing run's): a list of model prices with the
 * fields of the bundled table, each checked, every problem naming its field. It prices a model
 * the table does not know (a local server, a new model) or replaces the table's figures.
 */
import type { Problems } from '../config/index.js';
import type { ProviderName } from '../providers/index.js';
import type { ModelPrice } from './_prices.js';

const PRICE_KEYS = ['provider', 'model', 'inputPerMTok', 'outputPerMTok', 'cacheReadPerMTok', 'cacheWritePerMTok', 'readOn', 'source'] as const;
const PROVIDERS: readonly ProviderName[] = ['anthropic', 'openai-compatible', 'scripted'];
const FIGURES = ['inputPerMTok', 'outputPerMTok', 'cacheReadPerMTok', 'cacheWritePerMTok'] as const;

/** Checks `prices` (absent: none); a bad entry is left out, its problems recorded. */
export function parsePrices(value: unknown, problems: Problems, at = 'prices'): ModelPrice[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    problems.add(at, `must be a list of model prices, each with ${PRICE_KEYS.join(', ')}`);
    return [];
  }
  const prices: ModelPrice[] = [];
  value.forEach((item: unknown, index) => {
    const path = `${at}[${index}]`;
    const given = problems.mapping(item, path, `${PRICE_KEYS.join(', ')}`);
    if (given === undefined) return;
    const before = problems.list.length;
    problems.unknownKeys(given, PRICE_KEYS, path);
    const provider = problems.oneOf(given.provider, `${path}.provider`, PROVIDERS);
    const model = problems.text(given.model, `${path}.model`, true);
    const figures = FIGURES.map((key) => usdPerMTok(given[key], `${path}.${key}`, problems));
    const readOn = problems.text(given.readOn, `${path}.readOn`, true);
    if (readOn !== undefined && !isDay(readOn)) problems.add(`${path}.readOn`, 'must be the day the price was read, as YYYY-MM-DD');
    const source = problems.text(given.source, `${path}.source`, true);
    if (problems.list.length > before || provider === undefined || model === undefined || readOn === undefined || source === undefined) return;
    if (prices.some((entry) => entry.provider === provider && entry.model === model)) {
      problems.add(`${path}.model`, `repeats the price of ${provider} ${JSON.stringify(model)}`);
      return;
    }
    const [inputPerMTok, outputPerMTok, cacheReadPerMTok, cacheWritePerMTok] = figures as [number, number, number, number];
    prices.push({ provider, model, inputPerMTok, outputPerMTok, cacheReadPerMTok, cacheWritePerMTok, readOn, source });
  });
  return prices;
}

function usdPerMTok(value: unknown, path: string, problems: Problems): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= 10_000) return value;
  problems.add(path, value === undefined ? 'is required: USD per million tokens (0 for a free local model)' : 'must be USD per million tokens: a number from 0 to 10,000');
  return undefined;
}

function isDay(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const day = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(day.getTime()) && day.toISOString().startsWith(text);
}
