/** The model-call time table of a routing run, shared by report.md and the CLI: wall-clock, stated beside accuracy, never a verdict. */
import type { CallTimeCell } from '../_call-time.js';

export const CALL_TIME_HEADERS = ['protocol', 'kind', 'size', 'calls', 'total s', 'p50 ms', 'p95 ms'] as const;
/** The right-aligned (numeric) columns of CALL_TIME_HEADERS, by index. */
export const CALL_TIME_NUMERIC_COLUMNS: ReadonlySet<number> = new Set([2, 3, 4, 5, 6]);

export const CALL_TIME_NOTE =
  'Each model call from its first attempt\'s start to its answer\'s end (retries and their waits included), as the clock of the machine that ran saw it; p50 and p95 are nearest-rank. Stated, not compared: the load of the machine and of the API moves these times, so they are no verdict on a protocol.';

export function callTimeRow(cell: CallTimeCell): string[] {
  const ms = (value: number | null): string => (value === null ? 'unknown' : value.toFixed(0));
  return [
    cell.retriever === null ? cell.protocol : `${cell.protocol} (${cell.retriever})`,
    cell.kind,
    String(cell.size),
    String(cell.calls),
    cell.totalMs === null ? 'unknown' : (cell.totalMs / 1000).toFixed(2),
    ms(cell.p50Ms),
    ms(cell.p95Ms),
  ];
}
