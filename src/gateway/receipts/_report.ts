import { createReadStream } from 'node:fs';
import { access } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { McpctxError } from '../../errors/index.js';
import { isPlainObject } from '../../json/index.js';
import { RECEIPT_ACTIONS, type ReceiptAction } from './_receipts.js';

export interface GatewayReportRow {
  /** The tool as the client saw it; `(tools/list)` for catalog listings. */
  readonly tool: string;
  readonly upstream: string | null;
  readonly action: ReceiptAction;
  /** Receipts in this row (calls, or listings for `(tools/list)`). */
  readonly calls: number;
  readonly upstreamTokens: number;
  readonly deliveredTokens: number;
}

export interface GatewayReportTotals {
  /** Receipts of tool calls. */
  readonly calls: number;
  /** Receipts of `tools/list`. */
  readonly lists: number;
  readonly upstreamTokens: number;
  readonly deliveredTokens: number;
  /** upstreamTokens - deliveredTokens. */
  readonly savedTokens: number;
}

export interface GatewayReport {
  /** Sorted by tool, upstream (null first), then action, by code unit (no locale). */
  readonly rows: GatewayReportRow[];
  readonly totals: GatewayReportTotals;
  /** Lines that are not a receipt (not JSON, or missing a field); blank lines are not counted. */
  readonly badLines: number;
  readonly file: string;
}

export const LIST_ROW_TOOL = '(tools/list)';
/** Past this many distinct rows, receipts of new tools are summed under OTHER_TOOLS_ROW. */
export const MAX_REPORT_ROWS = 10_000;
export const OTHER_TOOLS_ROW = '(other tools)';

/** What a report counts of one receipt (a list's tool is LIST_ROW_TOOL). */
export interface ParsedReceipt {
  kind: 'call' | 'list';
  tool: string;
  upstream: string | null;
  action: ReceiptAction;
  upstreamTokens: number;
  deliveredTokens: number;
}

/** Sums a receipts file per tool, upstream and action. Bad lines are counted, not fatal; a file that cannot be read is IO. */
export async function readGatewayReport(file: string): Promise<GatewayReport> {
  try {
    await access(file);
  } catch (error) {
    throw new McpctxError('IO', `Cannot read the receipts file ${file}: ${(error as Error).message}`, { file }, { cause: error });
  }
  const rows = new Map<string, { -readonly [K in keyof GatewayReportRow]: GatewayReportRow[K] }>();
  const totals = { calls: 0, lists: 0, upstreamTokens: 0, deliveredTokens: 0 };
  let badLines = 0;
  const lines = createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Number.POSITIVE_INFINITY });
  try {
    for await (const line of lines) {
      if (line.trim() === '') continue;
      const receipt = parseReceipt(line);
      if (receipt === undefined) {
        badLines += 1;
        continue;
      }
      if (receipt.kind === 'call') totals.calls += 1;
      else totals.lists += 1;
      totals.upstreamTokens += receipt.upstreamTokens;
      totals.deliveredTokens += receipt.deliveredTokens;
      let key = reportRowKey(receipt);
      if (!rows.has(key) && rows.size >= MAX_REPORT_ROWS) {
        receipt.tool = OTHER_TOOLS_ROW;
        receipt.upstream = null;
        key = reportRowKey(receipt);
      }
      const row = rows.get(key) ?? { tool: receipt.tool, upstream: receipt.upstream, action: receipt.action, calls: 0, upstreamTokens: 0, deliveredTokens: 0 };
      row.calls += 1;
      row.upstreamTokens += receipt.upstreamTokens;
      row.deliveredTokens += receipt.deliveredTokens;
      rows.set(key, row);
    }
  } catch (error) {
    throw new McpctxError('IO', `Cannot read the receipts file ${file}: ${(error as Error).message}`, { file }, { cause: error });
  } finally {
    lines.close();
  }
  return {
    rows: [...rows.values()].sort(compareRows),
    totals: { ...totals, savedTokens: totals.upstreamTokens - totals.deliveredTokens },
    badLines,
    file,
  };
}

/** The row a receipt is summed in: its tool, upstream and action. */
export function reportRowKey(receipt: Pick<ParsedReceipt, 'tool' | 'upstream' | 'action'>): string {
  return JSON.stringify([receipt.tool, receipt.upstream, receipt.action]);
}

function parseReceipt(line: string): ParsedReceipt | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  return reportedReceipt(value);
}

/** A receipt (parsed from a line, or as written) as the report counts it, or undefined when it is not one. */
export function reportedReceipt(value: unknown): ParsedReceipt | undefined {
  if (!isPlainObject(value)) return undefined;
  const { kind, tool, upstream, action, upstreamTokens, deliveredTokens } = value;
  if (kind !== 'call' && kind !== 'list') return undefined;
  if (!RECEIPT_ACTIONS.includes(action as ReceiptAction)) return undefined;
  if (upstream !== null && typeof upstream !== 'string') return undefined;
  if (!isTokenCount(upstreamTokens) || !isTokenCount(deliveredTokens)) return undefined;
  let name: string;
  if (kind === 'list') name = LIST_ROW_TOOL;
  else if (typeof tool === 'string') name = tool;
  else return undefined;
  return { kind, tool: name, upstream, action: action as ReceiptAction, upstreamTokens, deliveredTokens };
}

function isTokenCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/** The report's order: tool, upstream (null first), then action, by code unit. */
export function compareRows(a: GatewayReportRow, b: GatewayReportRow): number {
  return compareText(a.tool, b.tool) || compareText(a.upstream ?? '', b.upstream ?? '') || (a.upstream === null ? 0 : 1) - (b.upstream === null ? 0 : 1) || compareText(a.action, b.action);
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
