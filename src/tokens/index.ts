export {
  TOKENIZER,
  countTokens,
  countTokensStoppable,
  isWithinTokenLimit,
  warmUpTokenizer,
  type StoppableCountOptions,
} from './_count.js';
export { countTokensAsync, countTokensEach, type AsyncCountOptions } from './_count-async.js';
export { canonicalJson, jsonText, sha256Hex } from './_canonical.js';
export { MAX_JSON_DEPTH } from '../json/index.js';
export { lineAndColumn } from './_text-position.js';
