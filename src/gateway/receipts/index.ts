// One JSON line per call and per tools/list, and the report that sums them.
export {
  MAX_RECEIPT_ARGS_CHARS,
  RECEIPT_ACTIONS,
  ReceiptWriter,
  type Receipt,
  type ReceiptAction,
  type ReceiptWriterOptions,
  type ReceiptsClosed,
} from './_receipts.js';
export { LIST_ROW_TOOL, OTHER_TOOLS_ROW, readGatewayReport, type GatewayReport, type GatewayReportRow, type GatewayReportTotals } from './_report.js';
