export { countTokens, isWithinTokenLimit, TOKENIZER } from './_count.js';
export { canonicalJson, sha256Hex } from './_canonical.js';
export { MAX_JSON_DEPTH, isPlainObject, nestsDeeperThan, type JsonObject } from './_json-value.js';
