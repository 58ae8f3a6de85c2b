/**
 * What a routing run spent: each answer's usage at the model's price, summed per cell (protocol,
 * retriever, kind, size, in the order the run asked them) and per run. Unknown (null), never 0,
 * when the model has no price. `routing verify` recomputes it with this same function; `--max-usd`
 * stops the run before a call whose worst case would pass the cap.
 */
import { csvText, type CsvCell } from '../csv/index.js';
import { checkBudget, formatUsd, sumUsd, usageUsd, type PriceRecord } from '../pricing/index.js';
import { sentRequestBody, type ChatRequest, type ProviderName } from '../providers/index.js';
import type { ModelRow } from './_score.js';
import type { DistractorKind, ProtocolName } from './_types.js';

export interface SpendCell {
  readonly protocol: ProtocolName;
  readonly retriever: string | null;
  readonly kind: DistractorKind;
  readonly size: number;
  readonly answers: number;
  readonly usd: number | null;
}

export interface RoutingSpend {
  /** The price the answers were reckoned at (the run's model), or null when none is known. */
  readonly price: PriceRecord | null;
  /** `--max-usd`, when the run had one. */
  readonly maxUsd: number | null;
  readonly cells: readonly SpendCell[];
  readonly totalUsd: number | null;
}

export function routingSpend(answers: readonly ModelRow[], price: PriceRecord | null, maxUsd: number | null): RoutingSpend {
  const cells = new Map<string, { protocol: ProtocolName; retriever: string | null; kind: DistractorKind; size: number; parts: (number | null)[] }>();
  for (const row of answers) {
    const key = JSON.stringify([row.protocol, row.retriever, row.kind, row.size]);
    let cell = cells.get(key);
    if (cell === undefined) {
      cell = { protocol: row.protocol, retriever: row.retriever, kind: row.kind, size: row.size, parts: [] };
      cells.set(key, cell);
    }
    cell.parts.push(usageUsd(row.usage, price));
  }
  const spendCells = [...cells.values()].map(({ parts, ...where }) => ({ ...where, answers: parts.length, usd: sumUsd(parts) }));
  return { price, maxUsd, cells: spendCells, totalUsd: sumUsd(answers.map((row) => usageUsd(row.usage, price))) };
}

/** Throws BUDGET_STOP when `chat`, sent now after `spent` USD, could take the run past `maxUsd`. */
export function checkRoutingBudget(chat: ChatRequest, provider: ProviderName, price: PriceRecord, spent: number, maxUsd: number): void {
  checkBudget(JSON.stringify(sentRequestBody(provider, chat)), chat.maxTokens, price, spent, maxUsd);
}

/** The report's spend section, or nothing for an offline run. */
export function spendMarkdown(spend: RoutingSpend | null | undefined): string[] {
  if (spend === null || spend === undefined) return [];
  const lines = ['## Spend', ''];
  const price = spend.price;
  lines.push(
    price === null
      ? 'No price is known for this model (not in the bundled table, none in the config\'s `prices:`): every spend is unknown.'
      : `Priced from ${price.from === 'table' ? 'the bundled price table' : 'the config\'s `prices:`'}: ${price.provider} \`${price.model}\`, USD per million tokens: input ${price.inputPerMTok}, output ${price.outputPerMTok}, cache read ${price.cacheReadPerMTok}, cache write ${price.cacheWritePerMTok}; read ${price.readOn} from ${price.source}.`,
    '',
  );
  if (spend.maxUsd !== null) lines.push(`Budget (--max-usd): ${formatUsd(spend.maxUsd)}.`, '');
  lines.push('| protocol | kind | size | answers | spend (USD) |', '|---|---|---:|---:|---:|');
  for (const cell of spend.cells) lines.push(`| ${cell.retriever === null ? cell.protocol : `${cell.protocol} (${cell.retriever})`} | ${cell.kind} | ${cell.size} | ${cell.answers} | ${formatUsd(cell.usd)} |`);
  lines.push(`| **run** | | | ${spend.cells.reduce((sum, cell) => sum + cell.answers, 0)} | **${formatUsd(spend.totalUsd)}** |`, '');
  return lines;
}

export const SPEND_CSV = 'spend.csv';

/** The Spend section as CSV: a row per cell, then the run; USD unformatted, empty when unknown. */
export function spendCsv(spend: RoutingSpend): string {
  const rows: CsvCell[][] = spend.cells.map((cell) => ['cell', cell.protocol, cell.retriever, cell.kind, cell.size, cell.answers, cell.usd]);
  rows.push(['run', null, null, null, null, spend.cells.reduce((sum, cell) => sum + cell.answers, 0), spend.totalUsd]);
  return csvText(['scope', 'protocol', 'retriever', 'kind', 'size', 'answers', 'usd'], rows);
}
