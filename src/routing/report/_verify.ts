import { readFile } from 'node:fs/promises';
import { McpctxError } from '../../errors/index.js';
import { canonicalJson, countTokens } from '../../tokens/index.js';
import { isPlainObject } from '../../json/index.js';
import { buildConditions, requestCatalog } from '../_catalogs.js';
import { catalogCosts } from '../_catalog-cost.js';
import { readChoice, renderedCatalog } from '../_protocols.js';
import { RECEIPT_FORMAT, RECEIPT_VERSION, type RoutingReceipt } from './_receipt.js';
import { recallTable } from '../retrieval/index.js';
import { accuracyTable, outcomeOf } from '../_score.js';
import type { RoutingConfig, RoutingTool } from '../_types.js';

/** Receipts are big (every raw answer) but bounded: a run of 10,000 answers is far below this. */
export const MAX_RECEIPT_BYTES = 512 * 1024 * 1024;
/** Differences listed in a report; `differenceCount` has them all. */
const LISTED_DIFFERENCES = 100;

export interface ReceiptDifference {
  /** Where: `tables.accuracy[3].counts`, `answers[17].outcome`, `catalogs[5].order`... */
  readonly field: string;
  readonly recorded: unknown;
  readonly recomputed: unknown;
}

export interface ReceiptVerification {
  readonly ok: boolean;
  readonly file: string | null;
  /** What was recomputed from the rows, for the report. */
  readonly checked: { readonly catalogs: number; readonly rankings: number; readonly answers: number; readonly cells: number };
  readonly differenceCount: number;
  readonly differences: readonly ReceiptDifference[];
}

/**
 * Recomputes a receipt from its rows and compares: every catalog order from the seed and the
 * tools, each condition's distractors and catalog tokens, each ranking's rank of the right
 * tool, each answer's choice (from its raw content), outcome and catalog tokens, and the recall
 * and accuracy tables from those rows. A figure edited by hand anywhere fails.
 */
export function verifyRoutingReceipt(receipt: RoutingReceipt, file: string | null = null): ReceiptVerification {
  const differences: ReceiptDifference[] = [];
  const compare = (field: string, recorded: unknown, recomputed: unknown): void => {
    if (canonicalJson(recorded ?? null) !== canonicalJson(recomputed ?? null)) differences.push({ field, recorded, recomputed });
  };
  const pseudoConfig = {
    seed: receipt.seed,
    sizes: receipt.sizes,
    distractors: {
      ...(receipt.kinds.includes('unrelated') ? { unrelated: { kind: 'inline', tools: [] } } : {}),
      ...(receipt.kinds.includes('confusable') ? { confusable: { kind: 'inline', tools: [] } } : {}),
    },
  } as unknown as RoutingConfig;
  const conditions = buildConditions(pseudoConfig, receipt.tools);
  compare('conditions', receipt.conditions, conditions);
  compare('catalogCosts', receipt.catalogCosts, catalogCosts(conditions, receipt.tools));
  let index = 0;
  for (const condition of conditions) {
    for (const request of receipt.requests) {
      compare(`catalogs[${index}]`, receipt.catalogs[index], requestCatalog(receipt.seed, condition, receipt.tools.domain, request));
      index += 1;
    }
  }
  if (receipt.catalogs.length !== index) compare('catalogs.length', receipt.catalogs.length, index);

  const expectedOf = new Map(receipt.requests.map((request) => [request.id, request.tool]));
  receipt.retrieval.forEach((row, position) => {
    compare(`retrieval[${position}].expected`, row.expected, expectedOf.get(row.requestId) ?? null);
    if (row.rank !== null && row.rank <= row.top.length) compare(`retrieval[${position}].rank`, row.top[row.rank - 1], row.expected);
    if (row.expected !== null && row.top.includes(row.expected)) compare(`retrieval[${position}].rank`, row.rank, row.top.indexOf(row.expected) + 1);
  });
  compare('recall', receipt.recall, recallTable(receipt.retrieval, receipt.recallAt));

  const byName = new Map<string, RoutingTool>([...receipt.tools.domain, ...receipt.tools.unrelated, ...receipt.tools.confusable].map((tool) => [tool.name, tool]));
  receipt.answers.forEach((row, position) => {
    const where = `answers[${position}]`;
    compare(`${where}.expected`, row.expected, expectedOf.get(row.requestId) ?? null);
    const choice = readChoice(row.protocol, { content: [...row.content] }, row.offered);
    compare(`${where}.chosen`, row.chosen, choice.chosen);
    compare(`${where}.invalid`, row.invalid, choice.invalid);
    compare(`${where}.outcome`, row.outcome, outcomeOf(row.expected, row.chosen));
    compare(`${where}.promptTokens`, row.promptTokens, row.usage.inputTokens + row.usage.cacheReadTokens + row.usage.cacheWriteTokens);
    const offered = row.offered.map((name) => byName.get(name));
    if (offered.every((tool): tool is RoutingTool => tool !== undefined)) compare(`${where}.catalogTokens`, row.catalogTokens, countTokens(renderedCatalog(row.protocol, offered)));
    else compare(`${where}.offered`, row.offered, row.offered.filter((name) => byName.has(name)));
  });
  compare('accuracy', receipt.accuracy, accuracyTable(receipt.answers, receipt.requests.length));
  return {
    ok: differences.length === 0,
    file,
    checked: { catalogs: receipt.catalogs.length, rankings: receipt.retrieval.length, answers: receipt.answers.length, cells: receipt.recall.length + receipt.accuracy.length },
    differenceCount: differences.length,
    differences: differences.slice(0, LISTED_DIFFERENCES),
  };
}

/** Reads a receipt file and verifies it. Unreadable: IO (USAGE if missing); not a routing receipt: INVALID_RESULTS. */
export async function verifyRoutingReceiptFile(file: string): Promise<ReceiptVerification> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new McpctxError(code === 'ENOENT' ? 'USAGE' : 'IO', `Cannot read the receipt ${file}: ${(error as Error).message}`, { file });
  }
  if (text.length > MAX_RECEIPT_BYTES) throw new McpctxError('INVALID_RESULTS', `${file} is over ${MAX_RECEIPT_BYTES} characters; not a routing receipt`, { file });
  let document: unknown;
  try {
    document = JSON.parse(text) as unknown;
  } catch (error) {
    throw new McpctxError('INVALID_RESULTS', `${file} is not JSON: ${(error as Error).message}`, { file });
  }
  if (!isReceipt(document)) throw new McpctxError('INVALID_RESULTS', `${file} is not a routing receipt (format ${RECEIPT_FORMAT}, version ${RECEIPT_VERSION}, written by mcpctx routing --out)`, { file });
  try {
    return verifyRoutingReceipt(document, file);
  } catch (error) {
    if (error instanceof McpctxError) throw error;
    // A receipt edited into another shape (a row without its fields) cannot be recomputed at all.
    throw new McpctxError('INVALID_RESULTS', `${file} cannot be recomputed: ${(error as Error).message}`, { file }, { cause: error });
  }
}

function isReceipt(value: unknown): value is RoutingReceipt {
  if (!isPlainObject(value) || value.format !== RECEIPT_FORMAT || value.version !== RECEIPT_VERSION) return false;
  const lists = ['sizes', 'kinds', 'recallAt', 'requests', 'conditions', 'catalogs', 'catalogCosts', 'retrieval', 'recall', 'answers', 'accuracy'];
  return typeof value.seed === 'number' && lists.every((key) => Array.isArray(value[key])) && isPlainObject(value.tools) && ['domain', 'unrelated', 'confusable'].every((key) => Array.isArray((value.tools as Record<string, unknown>)[key]));
}
