// The poisoning scan of tool definitions: rules as data and a scanner over every string. Pure: no I/O, no processes.
export { DECODED_TEXT_RULE_ID, POISONING_RULES, SCANNER_RAISED_RULE_IDS, SCAN_LIMIT_RULE_ID, type PoisoningRule, type PoisoningRuleKind } from './_rules.js';
export { type HiddenEncoding } from './_decode.js';
export {
  DEFAULT_SCAN_LIMITS,
  MAX_EXCERPT_CHARS,
  escapeHidden,
  scanCatalog,
  scanText,
  scanTool,
  TOOL_TEXT_PATH,
  type Finding,
  type ScanLimits,
  type ToolScan,
} from './_scan.js';
export { shadowedNames, type NamedTool, type ShadowKind, type Shadowing } from './_shadowing.js';
