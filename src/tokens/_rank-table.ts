import type { GptEncoding } from 'gpt-tokenizer/GptEncoding';
import { createRequire } from 'node:module';
import { lazyRequire } from '../lazy/index.js';
import { isPlainObject } from '../json/index.js';

/** o200k_base's mergeable ranks as gpt-tokenizer ships them: the token at each rank, as text, or as its bytes when they are not UTF-8. */
export type RankTable = ReadonlyArray<string | readonly number[]>;

const require = createRequire(import.meta.url);
export const TOKENIZER_VERSION = (require('gpt-tokenizer/package.json') as { version: string }).version;

const rankModule = lazyRequire<{ default: RankTable }>('gpt-tokenizer/bpeRanks/o200k_base');
const encodingModule = lazyRequire<{ GptEncoding: typeof GptEncoding }>('gpt-tokenizer/GptEncoding');

let table: { readonly ranks: RankTable; readonly source: 'built' | 'package' } | undefined;
let encoder: GptEncoding | undefined;

/** The rank table, loaded once: the built JSON when it is there and was written from the gpt-tokenizer installed, else gpt-tokenizer's module. */
export function o200kRanks(): RankTable {
  table ??= builtTable() ?? { ranks: rankModule().default, source: 'package' };
  return table.ranks;
}

/** Where the rank table came from, once loaded (for the tests that check the built file is used). */
export function rankTableSource(): 'built' | 'package' | undefined {
  return table?.source;
}

/**
 * gpt-tokenizer's o200k_base encoder, built at its first use from `o200kRanks()` the way its own
 * `encoding/o200k_base` module builds it. Loading the table and building the encoder take about
 * 200 ms and 60 MB, which a command that counts nothing (`--version`, `verify` of a bad path) must
 * not pay.
 */
export function o200kEncoder(): GptEncoding {
  encoder ??= encodingModule().GptEncoding.getEncodingApi('o200k_base', () => o200kRanks() as Array<string | number[]>);
  return encoder;
}

/**
 * The same table as JSON, written by `npm run build` (tools/build.mjs) as dist/o200k_base.ranks.json,
 * one folder up from both the library's files and the CLI's chunks. V8 parses it in about half the
 * time it takes to run gpt-tokenizer's module holding the table as a JavaScript array (80 ms against
 * 160 on a 2-core machine), a load every counting command pays. Absent when running from the
 * sources: the module is loaded then.
 */
function builtTable(): { ranks: RankTable; source: 'built' } | undefined {
  let data: unknown;
  try {
    data = require('../o200k_base.ranks.json');
  } catch {
    return undefined;
  }
  // Written from another gpt-tokenizer than the one installed (a dependency updated after the
  // build), it may not be the same table: the installed package is the one to trust.
  if (!isPlainObject(data) || data.version !== TOKENIZER_VERSION || data.encoding !== 'o200k_base' || !Array.isArray(data.ranks)) return undefined;
  return { ranks: data.ranks as RankTable, source: 'built' };
}
