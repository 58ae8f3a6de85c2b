// One JSON line per call and per tools/list, and the report that sums them.
export {
  MAX_RECEIPT_ARGS_CHARS,
  RECEIPT_ACTIONS,
  ReceiptWriter,
  teeReceipts,
  type ReceiptSink,
  type Receipt,
  type ReceiptAction,
  type ReceiptWriterOptions,
  type ReceiptsClosed,
} from './_receipts.js';
export {
  LIST_ROW_TOOL,
  MAX_REPORT_ROWS,
  OTHER_TOOLS_ROW,
  compareRows,
  readGatewayReport,
  reportRowKey,
  reportedReceipt,
  type ParsedReceipt,
  type GatewayReport,
  type GatewayReportRow,
  type GatewayReportTotals,
} from './_report.js';
