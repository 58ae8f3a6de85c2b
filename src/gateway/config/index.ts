// The gateway config: parsing and validation (every problem with its path), names and globs, env templates, effective rules.
export {
  DEFAULT_CAP_TOKENS,
  DEFAULT_HTTP_SESSIONS,
  DEFAULT_SEARCH_TOP_K,
  DEFAULT_SEPARATOR,
  DEFAULT_TIMEOUTS,
  DROPPABLE_TOOL_KEYS,
  type ConfigProblem,
  type DroppableToolKey,
  type GatewayConfig,
  type HttpUpstream,
  type NamePatterns,
  type ResolvedUpstream,
  type PinSettings,
  type SearchSettings,
  type StdioUpstream,
  type ToolRules,
  type UpstreamSpec,
} from './_config-types.js';
export { MAX_CONFIG_BYTES, claudeSafetyFactorOf, configForCommand, loadGatewayConfig, parseGatewayConfig } from './_config.js';
export { parseToolRules } from './_config-rules.js';
export { resolveUpstream } from './_env-templates.js';
export {
  MAX_TOOL_NAME_CHARS,
  isNamespaced,
  isToolAllowed,
  isToolNameTooLong,
  matchesGlob,
  matchesNameRule,
  splitVisibleName,
  toolRulesFor,
  visibleToolName,
} from './_name-patterns.js';
export { ConfigRules, configRules, type NamedRule, type RuleKind, type ToolRuleEntry } from './_rule-set.js';
export { SELECTOR_RANKS, parseToolSelector, type SelectorRank, type ToolSelector } from './_tool-selectors.js';
export {
  matchRules,
  type ListedToolNames,
  type RuleMatch,
  type RuleMatches,
  type ToolRuleMatch,
  type UpstreamRuleMatches,
} from './_rule-matches.js';
export { describeEffectiveRules, type EffectiveRules, type EffectiveToolRules, type EffectiveUpstream } from './_effective-rules.js';
export { MAX_PATH_CHARS, PATH_IDENTIFIER, PATH_SYNTAX, parsePath } from './_result-paths.js';
