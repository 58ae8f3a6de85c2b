// What a run leaves behind: the receipt, its verification from the rows, the markdown report and the SVG chart.
export { RECEIPT_FORMAT, RECEIPT_VERSION, routingReceipt, type ReceiptDifference, type RoutingReceipt } from './_receipt.js';
export { MAX_RECEIPT_BYTES, readVerifiedRoutingReceipt, verifyRoutingReceipt, verifyRoutingReceiptFile, type ReceiptVerification } from './_verify.js';
export { routingChart } from './_chart.js';
export { ACCURACY_CSV, CALL_TIME_CSV, CATALOG_COST_CSV, RECALL_CSV, routingCsvFiles } from './_csv-tables.js';
export { CALL_TIME_HEADERS, CALL_TIME_NUMERIC_COLUMNS, callTimeRow } from './_call-time-report.js';
export { ACCURACY_HEADERS, ACCURACY_NUMERIC_COLUMNS, CHART_FILE, RECEIPT_FILE, REPORT_FILE, accuracyRow, routingMarkdown, writeRoutingOutput } from './_report.js';
