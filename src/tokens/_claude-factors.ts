// Claude has no local tokenizer (Anthropic's @anthropic-ai/tokenizer is from 2023 and says itself it
// is no longer accurate; Claude 4.7+ models make about 30% more tokens of the same text). The
// practical rule: count o200k locally and multiply by a factor calibrated offline with
// count_tokens, one factor per model. This module holds the table's shape and the arithmetic;
// calling count_tokens is the caller's (`mcpctx calibrate`).
import { McpctxError } from '../errors/index.js';
import { countTokens } from './_count.js';

/** How a factor was measured; a table entry names it so a later method never mixes with it silently. */
export const CLAUDE_CALIBRATION_METHOD = 'count-tokens-message-delta/v1';

/** One calibrated model. */
export interface ClaudeFactorEntry {
  /** The model id as count_tokens took it. */
  readonly model: string;
  /** Claude tokens per o200k token, to multiply o200k counts by: the largest ratio over the samples, rounded up to 2 decimals. */
  readonly factor: number;
  /** The day it was measured (YYYY-MM-DD, UTC). */
  readonly measuredOn: string;
  readonly method: string;
  /** How many sample texts it was measured on. */
  readonly samples: number;
}

export interface ClaudeFactorTable {
  readonly version: 1;
  readonly entries: readonly ClaudeFactorEntry[];
}

/** One sample text and what each tokenizer made of it. */
export interface CalibrationSample {
  readonly name: string;
  readonly o200kTokens: number;
  readonly claudeTokens: number;
  /** claudeTokens / o200kTokens. */
  readonly ratio: number;
}

export interface CalibrationResult {
  readonly entry: ClaudeFactorEntry;
  readonly samples: readonly CalibrationSample[];
}

/** At most this factor is believable; anything above is a counting mistake, not a tokenizer. */
export const MAX_SAFETY_FACTOR = 10;
const MAX_ENTRIES = 10_000;

/** The factor rule: the largest claude/o200k ratio over the samples, rounded up to 2 decimals. */
export function safetyFactorOf(ratios: readonly number[]): number {
  if (ratios.length === 0) throw new McpctxError('INVALID_ARGUMENT', 'A safety factor needs at least one sample ratio.', { argument: 'ratios' });
  const largest = Math.max(...ratios);
  if (!Number.isFinite(largest) || largest <= 0) throw new McpctxError('INVALID_ARGUMENT', `A sample ratio must be a positive number, got ${largest}.`, { argument: 'ratios' });
  // Rounded up on the hundredths; the small epsilon keeps 1.15 (stored as 1.1499999...) from becoming 1.16.
  return Math.ceil(largest * 100 - 1e-9) / 100;
}

/**
 * Calibrates one model: counts each sample in o200k and through `countClaude` (the model's own
 * count of the sample's text, e.g. count_tokens of a message holding it minus that of a message
 * holding one character), and returns the table entry with every sample's ratio.
 */
export async function calibrateClaudeFactor(options: {
  readonly model: string;
  readonly samples: readonly { readonly name: string; readonly text: string }[];
  readonly countClaude: (text: string) => Promise<number>;
  /** When it was measured; default now. */
  readonly now?: Date;
  readonly method?: string;
}): Promise<CalibrationResult> {
  if (options.model === '') throw new McpctxError('INVALID_ARGUMENT', 'calibration needs a model id', { argument: 'model' });
  const samples: CalibrationSample[] = [];
  for (const sample of options.samples) {
    const o200kTokens = countTokens(sample.text);
    if (o200kTokens === 0) throw new McpctxError('INVALID_ARGUMENT', `calibration sample ${sample.name} is empty`, { argument: 'samples', value: sample.name });
    const claudeTokens = await options.countClaude(sample.text);
    if (!Number.isSafeInteger(claudeTokens) || claudeTokens <= 0) {
      throw new McpctxError('INVALID_ARGUMENT', `count_tokens gave ${claudeTokens} tokens for sample ${sample.name}; expected a positive integer.`, { argument: 'samples', value: sample.name });
    }
    samples.push({ name: sample.name, o200kTokens, claudeTokens, ratio: claudeTokens / o200kTokens });
  }
  const factor = safetyFactorOf(samples.map((sample) => sample.ratio));
  const entry: ClaudeFactorEntry = {
    model: options.model,
    factor,
    measuredOn: (options.now ?? new Date()).toISOString().slice(0, 10),
    method: options.method ?? CLAUDE_CALIBRATION_METHOD,
    samples: samples.length,
  };
  return { entry, samples };
}

/** A table read from JSON, checked: own properties only, each entry complete. Throws INVALID_ARGUMENT naming what is wrong. */
export function parseClaudeFactorTable(value: unknown, source = 'the factor table'): ClaudeFactorTable {
  const bad = (reason: string): never => {
    throw new McpctxError('INVALID_ARGUMENT', `${source}: ${reason}`, { argument: 'table', reason });
  };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return bad('must be an object { "version": 1, "entries": [...] }');
  const table = value as Record<string, unknown>;
  if (!Object.hasOwn(table, 'version') || table.version !== 1) bad('"version" must be 1');
  const entries = Object.hasOwn(table, 'entries') ? table.entries : undefined;
  if (!Array.isArray(entries)) return bad('"entries" must be a list');
  if (entries.length > MAX_ENTRIES) bad(`more than ${MAX_ENTRIES} entries`);
  const seen = new Set<string>();
  const checked = entries.map((raw: unknown, index): ClaudeFactorEntry => {
    const at = `entries[${index}]`;
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return bad(`${at} must be an object`);
    const entry = raw as Record<string, unknown>;
    const own = (key: string): unknown => (Object.hasOwn(entry, key) ? entry[key] : undefined);
    const model = own('model');
    const factor = own('factor');
    const measuredOn = own('measuredOn');
    const method = own('method');
    const samples = own('samples');
    if (typeof model !== 'string' || model === '') return bad(`${at}.model must be a model id`);
    if (seen.has(model)) bad(`${at}: model ${model} appears twice`);
    seen.add(model);
    if (typeof factor !== 'number' || !(factor > 0 && factor <= MAX_SAFETY_FACTOR)) return bad(`${at}.factor must be a number above 0 and at most ${MAX_SAFETY_FACTOR}`);
    if (typeof measuredOn !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(measuredOn)) return bad(`${at}.measuredOn must be a date YYYY-MM-DD`);
    if (typeof method !== 'string' || method === '') return bad(`${at}.method must name how it was measured`);
    if (typeof samples !== 'number' || !Number.isSafeInteger(samples) || samples < 1) return bad(`${at}.samples must be a positive integer`);
    return { model, factor, measuredOn, method, samples };
  });
  return { version: 1, entries: checked };
}

/** A cap in Claude tokens as o200k tokens: what an o200k count may reach so that it times the factor stays within the cap. */
export function o200kCapOf(capTokens: number, safetyFactor: number | undefined): number {
  return safetyFactor === undefined || safetyFactor === 1 ? capTokens : Math.max(1, Math.floor(capTokens / safetyFactor));
}

/** The table with `entry` in it, replacing the model's previous entry; entries sorted by model. */
export function withClaudeFactor(table: ClaudeFactorTable, entry: ClaudeFactorEntry): ClaudeFactorTable {
  const entries = [...table.entries.filter((existing) => existing.model !== entry.model), entry];
  return { version: 1, entries: entries.sort((a, b) => (a.model < b.model ? -1 : a.model > b.model ? 1 : 0)) };
}

/**
 * The calibrated factor of `model`. A model the table lacks is an error naming the models it has
 * (or saying it is empty): guessing a factor is what the table exists to avoid.
 */
export function claudeSafetyFactor(table: ClaudeFactorTable, model: string): number {
  const entry = table.entries.find((candidate) => candidate.model === model);
  if (entry !== undefined) return entry.factor;
  const has = table.entries.map((candidate) => candidate.model);
  throw new McpctxError(
    'USAGE',
    `No calibrated Claude safety factor for model ${model}: the table ${has.length === 0 ? 'is empty' : `has ${has.join(', ')}`}. ` +
      `Run mcpctx calibrate --claude-model ${model} (it needs an Anthropic API key) and use the table it writes.`,
    { value: model, names: has },
  );
}
