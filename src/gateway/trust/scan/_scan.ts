import { isPlainObject } from '../../../json/index.js';
import { hiddenPayloads, type HiddenEncoding } from './_decode.js';
import { normalizeForMatching, type NormalizedText } from './_normalize.js';
import { DECODED_TEXT_RULE_ID, POISONING_RULES, SCAN_LIMIT_RULE_ID, type PoisoningRule } from './_rules.js';

/** One rule matched in one string of a tool definition. */
export interface Finding {
  ruleId: string;
  reason: string;
  /**
   * Where the string sits, from the tool's root: `inputSchema.properties.to.description`,
   * `inputSchema.properties.level.enum[4]`. A trailing `~` means the property name itself
   * (`inputSchema.properties.ignore_rules~`), as in JSONPath-Plus. A match in text decoded from
   * the string says so after the path (`description (decoded base64)`); `(tool text)` is the
   * tool's titles and descriptions read as one text, for an instruction split across them.
   */
  path: string;
  /**
   * At most 120 characters around the match, from the raw text (a look-alike shows as itself);
   * for a match in decoded text, from the decoded text. Invisible and control characters as `\u{200B}`.
   */
  excerpt: string;
  /** Set when the match is in text decoded from the string (base64, variation selectors, tag characters). */
  decoded?: HiddenEncoding;
}

export interface ToolScan {
  /** Position in the catalog. */
  index: number;
  /** The tool's name with hidden characters escaped, or `tools[i]` when it has none. */
  tool: string;
  findings: Finding[];
}

export interface ScanLimits {
  /** Deepest nesting walked (the tool object is depth 0); deeper values are not scanned. */
  maxDepth: number;
  /** Values (strings, numbers, objects, arrays) and property names walked per tool; the rest are not scanned. */
  maxValues: number;
}

// Real definitions are far inside both: the largest tool of the GitHub catalog nests 9 deep and
// holds a few hundred values. The caps exist for hostile ones.
export const DEFAULT_SCAN_LIMITS: Readonly<ScanLimits> = { maxDepth: 64, maxValues: 20_000 };

export const MAX_EXCERPT_CHARS = 120;

interface CompiledRule {
  rule: PoisoningRule;
  regex: RegExp;
}

const COMPILED: readonly CompiledRule[] = POISONING_RULES.flatMap((rule) => (rule.pattern === undefined ? [] : [{ rule, regex: new RegExp(rule.pattern, 'iu') }]));
// Instruction rules read the text as a model does (normalized); the others read it raw, since
// invisible characters and encodings are what they look for. Instruction rules come first in
// POISONING_RULES, so findings stay in rule order.
const INSTRUCTION_RULES = COMPILED.filter(({ rule }) => rule.kind === 'instruction');
const RAW_TEXT_RULES = COMPILED.filter(({ rule }) => rule.kind !== 'instruction');

const LIMIT_RULE: PoisoningRule = ruleById(SCAN_LIMIT_RULE_ID);
const DECODED_TEXT_RULE: PoisoningRule = ruleById(DECODED_TEXT_RULE_ID);

function ruleById(id: string): PoisoningRule {
  const rule = POISONING_RULES.find((candidate) => candidate.id === id);
  if (rule === undefined) throw new Error(`no poisoning rule ${id}`);
  return rule;
}

/**
 * Each rule that matches `text`, once per rule, in rule order; then what text hidden in it
 * (base64, base64url, variation selectors, tag characters) says, once per rule and encoding.
 */
export function scanText(text: string, path: string): Finding[] {
  const normalized = normalizeForMatching(text);
  const findings = scanInstructions(text, path, normalized);
  for (const { rule, regex } of RAW_TEXT_RULES) {
    const match = regex.exec(text);
    if (match !== null) findings.push({ ruleId: rule.id, reason: rule.reason, path, excerpt: excerptAround(text, match.index) });
  }
  findings.push(...scanHiddenPayloads(text, normalized.text, path));
  return findings;
}

function scanHiddenPayloads(raw: string, normalized: string, path: string): Finding[] {
  const findings: Finding[] = [];
  const seen = new Set<string>();
  for (const payload of hiddenPayloads(raw, normalized)) {
    const where = `${path} (decoded ${payload.encoding})`;
    const isBase64 = payload.encoding === 'base64' || payload.encoding === 'base64url';
    if (isBase64 && payload.wordy && !seen.has(DECODED_TEXT_RULE_ID)) {
      seen.add(DECODED_TEXT_RULE_ID);
      findings.push({ ruleId: DECODED_TEXT_RULE.id, reason: DECODED_TEXT_RULE.reason, path: where, excerpt: excerptAround(payload.text, 0), decoded: payload.encoding });
    }
    // Read once: a payload inside a payload is not decoded again.
    for (const finding of scanInstructions(payload.text, where)) {
      const key = `${finding.ruleId} ${payload.encoding}`;
      if (seen.has(key)) continue;
      seen.add(key);
      findings.push({ ...finding, decoded: payload.encoding });
    }
  }
  return findings;
}

/** The instruction rules alone over `text` as normalized; excerpts from `text` itself. */
function scanInstructions(text: string, path: string, normalized: NormalizedText = normalizeForMatching(text)): Finding[] {
  const findings: Finding[] = [];
  for (const { rule, regex } of INSTRUCTION_RULES) {
    const match = regex.exec(normalized.text);
    if (match !== null) findings.push({ ruleId: rule.id, reason: rule.reason, path, excerpt: excerptAround(text, normalized.rawIndex(match.index)) });
  }
  return findings;
}

/** Where the tool's titles and descriptions, read as one text, are reported. */
export const TOOL_TEXT_PATH = '(tool text)';
// The keys whose strings are prose a model reads as one text: the tool's and each schema's.
const PROSE_KEYS: ReadonlySet<string> = new Set(['title', 'description']);

type Segment = string | number;

interface Pending {
  value: unknown;
  path: readonly Segment[];
  depth: number;
  /** The value is the property name at the end of `path`, not what it holds. */
  isKey?: true;
}

/**
 * Every rule over every string of a tool definition, at any depth: name, title, description,
 * annotations, input and output schemas (descriptions, titles, enum values, const, defaults,
 * examples), unknown keys, and property names. Pure and deterministic: findings come in the
 * definition's own order. Past `limits`, the rest is not scanned and a `MCP-S001` finding says
 * where scanning stopped, so a cap is never silence.
 */
export function scanTool(tool: unknown, limits: ScanLimits = DEFAULT_SCAN_LIMITS): Finding[] {
  const findings: Finding[] = [];
  let tooDeep: { path: readonly Segment[]; count: number } | undefined;
  let values = 0;
  const prose: string[] = [];
  // Iterative, so a hostile nesting cannot overflow the stack; children pushed in reverse keep source order.
  const stack: Pending[] = [{ value: tool, path: [], depth: 0 }];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    if (values >= limits.maxValues) {
      findings.push(limitFinding(next.path, `more than ${limits.maxValues} values: scanning stopped here`));
      break;
    }
    values += 1;
    const { value, path, depth } = next;
    if (typeof value === 'string') {
      findings.push(...scanText(value, next.isKey ? `${renderPath(path)}~` : renderPath(path)));
      const key = path[path.length - 1];
      if (!next.isKey && typeof key === 'string' && PROSE_KEYS.has(key)) prose.push(value);
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    if (depth >= limits.maxDepth) {
      if (tooDeep === undefined) tooDeep = { path, count: 0 };
      tooDeep.count += 1;
      continue;
    }
    const children: Pending[] = [];
    if (Array.isArray(value)) {
      value.forEach((child, index) => children.push({ value: child, path: [...path, index], depth: depth + 1 }));
    } else if (isPlainObject(value)) {
      for (const [key, child] of Object.entries(value)) {
        // The name first, then what it holds: findings read in the definition's order.
        children.push({ value: key, path: [...path, key], depth: depth + 1, isKey: true });
        children.push({ value: child, path: [...path, key], depth: depth + 1 });
      }
    }
    for (let index = children.length - 1; index >= 0; index -= 1) stack.push(children[index] as Pending);
  }
  if (tooDeep !== undefined) {
    const subtrees = tooDeep.count === 1 ? 'its contents were' : `the contents of ${tooDeep.count} such values were`;
    findings.push(limitFinding(tooDeep.path, `nested deeper than ${limits.maxDepth} levels: ${subtrees} not scanned`));
  }
  findings.push(...scanProse(prose, findings));
  return findings;
}

/**
 * An instruction split across the title, the description and a parameter's description matches
 * none of them alone; read together, in the definition's order, it does. Only rules that found
 * nothing in the parts are reported here, so one instruction is not reported twice.
 */
function scanProse(prose: readonly string[], found: readonly Finding[]): Finding[] {
  if (prose.length < 2) return [];
  const already = new Set(found.map((finding) => finding.ruleId));
  return scanInstructions(prose.join(' '), TOOL_TEXT_PATH).filter((finding) => !already.has(finding.ruleId));
}

/** `scanTool` for each tool of a catalog, in catalog order (tools without findings included). */
export function scanCatalog(tools: readonly unknown[], limits: ScanLimits = DEFAULT_SCAN_LIMITS): ToolScan[] {
  return tools.map((tool, index) => {
    const name = isPlainObject(tool) && typeof tool.name === 'string' ? escapeHidden(tool.name) : `tools[${index}]`;
    return { index, tool: name, findings: scanTool(tool, limits) };
  });
}

function limitFinding(path: readonly Segment[], excerpt: string): Finding {
  return { ruleId: LIMIT_RULE.id, reason: LIMIT_RULE.reason, path: renderPath(path), excerpt };
}

const PLAIN_KEY = /^[A-Za-z_$][\w$-]*$/;

/** `inputSchema.properties.to.description`, `enum[4]`, `properties["a b"]`; `$` for the root itself. */
function renderPath(path: readonly Segment[]): string {
  if (path.length === 0) return '$';
  let text = '';
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else if (PLAIN_KEY.test(segment)) text += text === '' ? segment : `.${segment}`;
    else text += `[${escapeHidden(JSON.stringify(segment))}]`;
  }
  return text;
}

// Controls, format characters (zero-width, bidi, tags), line/paragraph separators, and whatever
// else renders as nothing (variation selectors, fillers): a reviewer must see that it is there.
const HIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]/gu;

/** Invisible and control characters as `\u{XXXX}`, so what a reviewer reads is what is there. */
export function escapeHidden(text: string): string {
  return text.replace(HIDDEN, (char) => `\\u{${(char.codePointAt(0) ?? 0).toString(16).toUpperCase()}}`);
}

// Room for what leads up to the match, counted in shown characters (an escape is up to 10).
const CONTEXT_BEFORE = 30;

/** The match with a little text before it, escaped, cut to MAX_EXCERPT_CHARS with `…` where text goes on. */
function excerptAround(text: string, start: number): string {
  // Walk back from the match by code point until the context budget is spent.
  let before = '';
  let from = start;
  while (from > 0) {
    const step = from >= 2 && isLowSurrogate(text.charCodeAt(from - 1)) && isHighSurrogate(text.charCodeAt(from - 2)) ? 2 : 1;
    const shown = escapeHidden(text.slice(from - step, from));
    if (before.length + shown.length > CONTEXT_BEFORE) break;
    before = shown + before;
    from -= step;
  }
  let body = `${from > 0 ? '…' : ''}${before}`;
  let to = start;
  // Enough raw text for the budget even if nothing needs escaping; never the whole of a huge match.
  for (const char of text.slice(start, start + MAX_EXCERPT_CHARS + 2)) {
    const shown = escapeHidden(char);
    if (body.length + shown.length > MAX_EXCERPT_CHARS - 1) break;
    body += shown;
    to += char.length;
  }
  return to < text.length ? `${body}…` : body;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
