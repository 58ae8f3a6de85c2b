// _rank-table.ts for a browser: tools/build.mjs puts this file in its place when it bundles the
// site's in-browser verify (src/results/site/browser), so the counting code (_count.ts,
// _piece-count.ts, _exact-bpe.ts) is the very code the CLI runs, over the same table, with the
// table taken from gpt-tokenizer's ES module instead of Node's require. Never imported under Node.
import { GptEncoding } from 'gpt-tokenizer/GptEncoding';
import o200kBase from 'gpt-tokenizer/bpeRanks/o200k_base';
import type * as NodeRankTable from './_rank-table.js';

/** Written by the bundler from the gpt-tokenizer it bundled (tools/build.mjs, `define`). */
declare const MCPCTX_TOKENIZER_VERSION: string;

export type RankTable = NodeRankTable.RankTable;

export const TOKENIZER_VERSION: string = MCPCTX_TOKENIZER_VERSION;

let encoder: GptEncoding | undefined;

export function o200kRanks(): RankTable {
  return o200kBase;
}

export function rankTableSource(): 'built' | 'package' | undefined {
  return 'package';
}

/** Built at the first count, as under Node (the page loads the bundle only when asked to verify). */
export function o200kEncoder(): GptEncoding {
  encoder ??= GptEncoding.getEncodingApi('o200k_base', () => o200kBase);
  return encoder;
}

// The same surface as the Node file, checked by the compiler: a function added there and used by
// the counting code must be added here too.
({ TOKENIZER_VERSION, o200kRanks, rankTableSource, o200kEncoder }) satisfies typeof NodeRankTable;
