import { countTokens, isWithinTokenLimit, jsonText } from '../../tokens/index.js';
import type { ToolRules } from '../config/index.js';
import { setOwn } from '../../json/index.js';

export interface ToolChange {
  readonly field: string;
  readonly tokensBefore: number;
  readonly tokensAfter: number;
}

const ELLIPSIS = '…';
/** How far back from the cut a space still counts as "near": a word boundary is worth this many characters. */
const WORD_BOUNDARY_REACH = 24;

/**
 * Applies one tool's rules to its definition as the upstream sent it, renaming it to visibleName.
 * Nothing to change gives back the same object (byte fidelity); otherwise a copy keeps every other
 * key in its place, unknown ones included. Each changed field is listed with its o200k tokens
 * (of the field's compact JSON, 0 when absent) before and after; the rename is not a rule and is
 * not listed.
 */
export function applyToolRules(
  tool: Readonly<Record<string, unknown>>,
  visibleName: string,
  rules: ToolRules | undefined,
): { tool: Record<string, unknown>; changes: ToolChange[] } {
  const changes: ToolChange[] = [];
  const removed = new Set<string>();
  const description = rules === undefined ? undefined : newDescription(tool.description, rules);
  if (description !== undefined) changes.push(change('description', tool.description, description));
  if (listsWithoutOutputSchema(rules) && Object.hasOwn(tool, 'outputSchema')) removed.add('outputSchema');
  for (const key of rules?.drop ?? []) if (Object.hasOwn(tool, key)) removed.add(key);
  for (const key of removed) changes.push(change(key, tool[key], undefined));
  const renamed = tool.name !== visibleName;
  if (!renamed && changes.length === 0) return { tool: tool as Record<string, unknown>, changes };

  const copy: Record<string, unknown> = {};
  const put = (key: string, value: unknown): void => {
    // Defined, not assigned: an upstream's "__proto__" key stays a key instead of a prototype.
    setOwn(copy, key, value);
  };
  if (!Object.hasOwn(tool, 'name')) put('name', visibleName);
  for (const [key, value] of Object.entries(tool)) {
    if (removed.has(key)) continue;
    if (key === 'name') put(key, visibleName);
    else if (key === 'description' && description !== undefined) put(key, description);
    else put(key, value);
    if (key === 'name' && description !== undefined && !Object.hasOwn(tool, 'description')) put('description', description);
  }
  return { tool: copy, changes };
}

/**
 * Whether the listing leaves a tool's outputSchema out: unless its rules say `dropOutputSchema:
 * false`. The gateway may reshape any result (over the cap it is offloaded, rules project and page
 * it) and a reshaped result has no structuredContent; a client that validates (the official SDKs
 * do, once they have listed the tools) rejects a result of a tool with an outputSchema that lacks it.
 */
export function listsWithoutOutputSchema(rules: Pick<ToolRules, 'dropOutputSchema'> | undefined): boolean {
  return rules?.dropOutputSchema !== false;
}

/** The description the client sees, or undefined when the rules leave it as it is. */
function newDescription(current: unknown, rules: ToolRules): string | undefined {
  const base = rules.description ?? current;
  if (typeof base !== 'string') return undefined;
  const text = rules.maxDescriptionTokens === undefined ? base : capTextTokens(base, rules.maxDescriptionTokens);
  return text === current ? undefined : text;
}

/**
 * `text` cut to at most `cap` o200k tokens, the ellipsis included, at a word boundary when one is
 * near the longest prefix that fits. Token counts grow almost but not strictly with length, so
 * the binary search's answer is checked again and walked back if it does not fit.
 */
export function capTextTokens(text: string, cap: number): string {
  if (isWithinTokenLimit(text, cap) !== false) return text;
  const cut = (end: number): string => `${text.slice(0, safeEnd(text, end)).trimEnd()}${ELLIPSIS}`;
  const fits = (candidate: string): boolean => isWithinTokenLimit(candidate, cap) !== false;
  let low = 0;
  let high = text.length;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (fits(cut(middle))) low = middle;
    else high = middle - 1;
  }
  while (low > 0 && !fits(cut(low))) low -= 1;
  const space = text.slice(0, low).search(/\s\S*$/);
  if (space > 0 && low - space <= WORD_BOUNDARY_REACH && fits(cut(space))) return cut(space);
  return cut(low);
}

/** `end`, moved back one when it would split a surrogate pair. */
function safeEnd(text: string, end: number): number {
  const before = text.charCodeAt(end - 1);
  return end > 0 && end < text.length && before >= 0xd800 && before <= 0xdbff ? end - 1 : end;
}

function change(field: string, before: unknown, after: unknown): ToolChange {
  return { field, tokensBefore: fieldTokens(before), tokensAfter: fieldTokens(after) };
}

function fieldTokens(value: unknown): number {
  if (value === undefined) return 0;
  const text = jsonText(value, `The tool's field`);
  return text === undefined ? 0 : countTokens(text);
}
