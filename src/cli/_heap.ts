// The V8 heap policy of the commands that read a whole session at once (`optimize`, the compaction
// hook). V8's default lets the old generation grow to about twice what survived the last full
// collection before it collects again, so a 100,000-record build peaked at 830-890 MiB of RSS with
// under 300 MiB alive. Growing by a fifth instead keeps the peak near 500 MiB for 4-12% more build
// time (bench/optimizer-scale.bench.ts). It changes when the collector runs, never what is computed.
import { setFlagsFromString } from 'node:v8';

/** Old-generation growth after a full collection, in percent of what survived it. */
const HEAP_GROWING_PERCENT = 20;

/** Makes this process collect garbage sooner: for a CLI process that builds one large context and exits. */
export function preferSmallHeap(): void {
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
