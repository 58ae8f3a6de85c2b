export {
  TOKENIZER,
  countTokens,
  countTokensStoppable,
  isWithinTokenLimit,
  warmUpTokenizer,
  type StoppableCountOptions,
} from './_count.js';
export { countTokensAsync, countTokensEach, type AsyncCountOptions } from './_count-async.js';
export { canonicalJson, jsonText } from './_canonical.js';
export { sha256Hex } from './_sha256.js';
export { MAX_JSON_DEPTH } from '../json/index.js';
export { lineAndColumn } from './_text-position.js';
export {
  CLAUDE_CALIBRATION_METHOD,
  MAX_SAFETY_FACTOR,
  calibrateClaudeFactor,
  claudeSafetyFactor,
  o200kCapOf,
  parseClaudeFactorTable,
  safetyFactorOf,
  withClaudeFactor,
  type CalibrationResult,
  type CalibrationSample,
  type ClaudeFactorEntry,
  type ClaudeFactorTable,
} from './_claude-factors.js';
