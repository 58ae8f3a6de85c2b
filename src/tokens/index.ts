export { countTokens, isWithinTokenLimit, TOKENIZER } from './_count.js';
export { canonicalJson, sha256Hex } from './_canonical.js';
