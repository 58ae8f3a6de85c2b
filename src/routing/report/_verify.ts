import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { csvFilesDifferences } from '../../csv/index.js';
import { routingCsvFiles } from './_csv-tables.js';
import { McpctxError } from '../../errors/index.js';
import { canonicalJson, countTokens, sha256Hex } from '../../tokens/index.js';
import { isPlainObject, ownValue } from '../../json/index.js';
import { buildConditions, requestCatalog } from '../_catalogs.js';
import { catalogCosts } from '../_catalog-cost.js';
import { readChoice, renderedCatalog } from '../_protocols.js';
import { RECEIPT_FORMAT, RECEIPT_VERSION, type ReceiptDifference, type RoutingReceipt } from './_receipt.js';
import { recallTable } from '../retrieval/index.js';
import { accuracyTable, outcomeOf, type ModelRow } from '../_score.js';
import type { RoutingConfig } from '../_types.js';
import { MAX_ROUTING_REPEAT } from '../config/index.js';
import { rebuiltRequestBody, recordedRequestBody, rederivedCalls, rederivedRetrieval, replayedAnswer } from './_rederive.js';
import { routingSpend } from '../_spend.js';
import { callTimeTable } from '../_call-time.js';
import { callTimingDifferences } from './_verify-timing.js';

/** Receipts are big (every raw answer) but bounded: a run of 10,000 answers is far below this. */
export const MAX_RECEIPT_BYTES = 512 * 1024 * 1024;
/** Differences listed in a report; `differenceCount` has them all. */
const LISTED_DIFFERENCES = 100;

export interface ReceiptVerification {
  readonly ok: boolean;
  readonly file: string | null;
  /** What was recomputed from the rows, for the report. */
  readonly checked: { readonly catalogs: number; readonly rankings: number; readonly answers: number; readonly cells: number };
  readonly differenceCount: number;
  readonly differences: readonly ReceiptDifference[];
  /** The CSV exports found beside the receipt file and re-derived (none for a receipt given as a value). */
  readonly csvFiles: readonly string[];
}

/**
 * Re-derives a receipt and compares, field by field: every catalog order from the seed and the
 * tools, each condition's distractors and catalog tokens, every BM25 ranking by ranking again,
 * every embeddings ranking by cosine from the recorded vectors,
 * which answer comes where and what it was offered from the plan of calls, each request body as
 * the provider's own request code builds it from that plan (and its hash), each answer's content
 * and choice from its raw response bytes (not its parsed `content`), its outcome and catalog
 * tokens, and the recall and accuracy tables; the call-time table from the answers' timings, and
 * those timings in run order (_verify-timing.ts). Each difference names its path down to the value.
 */
export function verifyRoutingReceipt(receipt: RoutingReceipt, file: string | null = null): ReceiptVerification {
  const differences: ReceiptDifference[] = [];
  const compare = (field: string, recorded: unknown, recomputed: unknown): void => addDifferences(differences, field, recorded, recomputed);
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
  const catalogs = conditions.flatMap((condition) => receipt.requests.map((request) => requestCatalog(receipt.seed, condition, receipt.tools.domain, request)));
  compare('catalogs', receipt.catalogs, catalogs);
  compare('topK', receipt.topK, receipt.retrievalSettings.topK);

  const missingVectors = new Set<string>();
  const retrieval = rederivedRetrieval(receipt, conditions, missingVectors);
  for (const text of missingVectors) compare(`embeddings[${JSON.stringify(text)}]`, null, 'a vector, to rank this text again');
  compare('retrieval', receipt.retrieval, retrieval);
  compare('recall', receipt.recall, recallTable(retrieval, receipt.recallAt));

  const repeat = recordedRepeat(receipt, compare);
  const calls = rederivedCalls(receipt, conditions, catalogs, retrieval, repeat);
  // An offline run asks no model; a run a provider error stopped answered the calls before it.
  const answered = receipt.model === null ? 0 : receipt.failure === null ? calls.length : receipt.failure.call;
  if (receipt.answers.length !== answered) compare('answers.length', receipt.answers.length, answered);
  const rederived: ModelRow[] = [];
  receipt.answers.forEach((row, position) => {
    const where = `answers[${position}]`;
    const call = calls[position];
    const planned = call === undefined ? null : { protocol: call.protocol, retriever: call.retriever, kind: call.kind, size: call.size, requestId: call.request.id, repetition: call.repetition, expected: call.request.tool, offered: call.offered.map((tool) => tool.name) };
    const { protocol, retriever, kind, size, requestId, expected, offered } = row;
    // A row from before repetitions is the first (and only) asking.
    compare(where, { protocol, retriever, kind, size, requestId, repetition: row.repetition ?? 1, expected, offered }, planned);
    // The request as sent, against the one the settings, the plan's offered tools and the request text make.
    if (call !== undefined) compare(`${where}.requestBody`, recordedRequestBody(row.requestBody), rebuiltRequestBody(receipt, call));
    compare(`${where}.requestSha256`, row.requestSha256, typeof row.requestBody === 'string' ? sha256Hex(row.requestBody) : null);
    const replayed = replayedAnswer(receipt, row.rawResponse);
    if ('unreadable' in replayed) {
      compare(`${where}.rawResponse`, 'recorded bytes', `unreadable: ${replayed.unreadable}`);
      return;
    }
    compare(`${where}.content`, row.content, replayed.content);
    compare(`${where}.stopReason`, row.stopReason, replayed.stopReason);
    // The scripted provider counts a turn's missing usage from the request body, which is not kept.
    if (receipt.model?.provider !== 'scripted') compare(`${where}.usage`, row.usage, replayed.usage);
    const shown = planned?.offered ?? offered;
    const choice = readChoice(row.protocol, replayed, shown);
    const outcome = outcomeOf(planned?.expected ?? expected, choice.chosen);
    compare(`${where}.chosen`, row.chosen, choice.chosen);
    compare(`${where}.invalid`, row.invalid, choice.invalid);
    compare(`${where}.outcome`, row.outcome, outcome);
    const usage = receipt.model?.provider === 'scripted' ? row.usage : replayed.usage;
    // A raw response without usage (a run records none: it stops there) is a difference, not 0 tokens.
    const promptTokens = usage === null ? null : usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
    compare(`${where}.promptTokens`, row.promptTokens, promptTokens);
    const tools = call?.offered ?? [];
    const catalogTokens = call === undefined ? row.catalogTokens : countTokens(renderedCatalog(row.protocol, tools));
    compare(`${where}.catalogTokens`, row.catalogTokens, catalogTokens);
    rederived.push({ ...row, ...(planned ?? {}), content: replayed.content, chosen: choice.chosen, invalid: choice.invalid, outcome, promptTokens: promptTokens ?? row.promptTokens, catalogTokens });
  });
  compare('accuracy', receipt.accuracy, accuracyTable(rederived, receipt.requests.length * repeat));
  // Receipts from before spend was recorded have none.
  if (receipt.spend !== undefined && receipt.spend !== null) {
    const price = receipt.spend.price;
    if (price !== null && receipt.model !== null) compare('spend.price.model', price.model, receipt.model.name);
    compare('spend', receipt.spend, routingSpend(rederived, price, receipt.spend.maxUsd));
  }
  // Receipts from before timings were recorded have no call-time table, and no timings to check.
  if (receipt.callTimes !== undefined) compare('callTimes', receipt.callTimes, callTimeTable(rederived, receipt.requests.length * repeat));
  differences.push(...callTimingDifferences(receipt.answers, receipt.callTimes !== undefined));
  return {
    ok: differences.length === 0,
    file,
    checked: { catalogs: receipt.catalogs.length, rankings: receipt.retrieval.length, answers: receipt.answers.length, cells: receipt.recall.length + receipt.accuracy.length },
    differenceCount: differences.length,
    differences: differences.slice(0, LISTED_DIFFERENCES),
    csvFiles: [],
  };
}

/** The run's repeat (absent in receipts from before repetitions: 1); one that is not a count is a difference, and 1 stands in. */
function recordedRepeat(receipt: RoutingReceipt, compare: (field: string, recorded: unknown, recomputed: unknown) => void): number {
  const repeat: unknown = ownValue(receipt as unknown as Record<string, unknown>, 'repeat');
  if (repeat === undefined) return 1;
  if (typeof repeat === 'number' && Number.isInteger(repeat) && repeat >= 1 && repeat <= MAX_ROUTING_REPEAT) return repeat;
  compare('repeat', repeat, `an integer from 1 to ${MAX_ROUTING_REPEAT}`);
  return 1;
}

/**
 * The differences between a recorded and a recomputed value, down to the leaves: objects and
 * lists of objects by key and index, so a forged figure names its own path; a list of plain
 * values (a ranking, an offered list) is one value, shown whole on both sides.
 */
function addDifferences(into: ReceiptDifference[], field: string, recorded: unknown, recomputed: unknown): void {
  if (canonicalJson(recorded ?? null) === canonicalJson(recomputed ?? null)) return;
  if (isPlainObject(recorded) && isPlainObject(recomputed)) {
    const keys = [...new Set([...Object.keys(recomputed), ...Object.keys(recorded)])];
    for (const key of keys) addDifferences(into, `${field}.${key}`, ownValue(recorded, key), ownValue(recomputed, key));
    return;
  }
  if (Array.isArray(recorded) && Array.isArray(recomputed) && [...recorded, ...recomputed].some((item) => typeof item === 'object' && item !== null)) {
    if (recorded.length !== recomputed.length) into.push({ field: `${field}.length`, recorded: recorded.length, recomputed: recomputed.length });
    const shared = Math.min(recorded.length, recomputed.length);
    for (let index = 0; index < shared; index++) addDifferences(into, `${field}[${index}]`, recorded[index], recomputed[index]);
    return;
  }
  into.push({ field, recorded, recomputed });
}

/**
 * `--resume`: the stopped run's receipt, read and verified first: answers are used again only from
 * a receipt whose every figure recomputes (a hand-edited answer would otherwise enter a new run).
 */
export async function readVerifiedRoutingReceipt(file: string): Promise<RoutingReceipt> {
  // The receipt used is the one verified: read and parsed once.
  const { document, verification } = await readAndVerify(file);
  if (!verification.ok) {
    const first = verification.differences[0];
    throw new McpctxError('RESUME_MISMATCH', `--resume: ${file} does not verify (${verification.differenceCount} differences${first === undefined ? '' : `, the first at ${first.field}`}): nothing of it is used again`, { file });
  }
  return document;
}

/** Reads a receipt file and verifies it. Unreadable: IO (USAGE if missing); not a routing receipt: INVALID_RESULTS. */
export async function verifyRoutingReceiptFile(file: string): Promise<ReceiptVerification> {
  return (await readAndVerify(file)).verification;
}

async function readAndVerify(file: string): Promise<{ document: RoutingReceipt; verification: ReceiptVerification }> {
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
  let verification: ReceiptVerification;
  try {
    verification = verifyRoutingReceipt(document, file);
  } catch (error) {
    if (error instanceof McpctxError) throw error;
    // A receipt edited into another shape (a row without its fields) cannot be recomputed at all.
    throw new McpctxError('INVALID_RESULTS', `${file} cannot be recomputed: ${(error as Error).message}`, { file }, { cause: error });
  }
  // The CSV exports beside it, re-derived from the receipt and compared cell by cell.
  const csv = await csvFilesDifferences(dirname(file), routingCsvFiles(document));
  const found: ReceiptDifference[] = csv.differences.map(({ file: name, row, column, recorded, recomputed }) => ({ field: row === 0 ? `${name} header, column ${column}` : `${name} row ${row}, column ${column}`, recorded, recomputed }));
  const differenceCount = verification.differenceCount + found.length;
  return {
    document,
    verification: {
      ...verification,
      ok: differenceCount === 0,
      differenceCount,
      differences: [...verification.differences, ...found].slice(0, LISTED_DIFFERENCES),
      csvFiles: csv.checked,
    },
  };
}

function isReceipt(value: unknown): value is RoutingReceipt {
  if (!isPlainObject(value) || value.format !== RECEIPT_FORMAT || value.version !== RECEIPT_VERSION) return false;
  const lists = ['sizes', 'kinds', 'recallAt', 'requests', 'conditions', 'catalogs', 'catalogCosts', 'retrieval', 'recall', 'answers', 'accuracy'];
  return typeof value.seed === 'number' && lists.every((key) => Array.isArray(value[key])) && isPlainObject(value.tools) && ['domain', 'unrelated', 'confusable'].every((key) => Array.isArray((value.tools as Record<string, unknown>)[key]));
}
