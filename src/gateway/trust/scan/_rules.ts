/**
 * The poisoning rules, as data: one list, each rule with a stable id and the reason a user reads.
 * Kept as a typed constant rather than a JSON file so it loads the same way from `src` (tests,
 * tsx) and `dist` (the build copies no non-TS files). Nothing here but literals.
 *
 * Patterns are compiled with flags `iu` and must stay linear-time on any input: no quantified
 * group that itself holds an open-ended quantifier (`(a+)+`, `(\s*x)*`), and every gap between
 * two words is bounded (`[^.!?\n]{0,60}?`). A test checks both on each pattern and runs every
 * rule over 1 MB inputs built to make a backtracking engine struggle.
 */

export type PoisoningRuleKind = 'instruction' | 'hidden-unicode' | 'encoded' | 'limit';

export interface PoisoningRule {
  /** Stable id (`MCP-P001`): P instruction patterns, H hidden Unicode, E encoded blobs, S scan limits. */
  readonly id: string;
  readonly reason: string;
  readonly kind: PoisoningRuleKind;
  /** A regular expression source, compiled with `iu`; absent for `limit` rules, which the scanner raises itself. */
  readonly pattern?: string;
}

/** The rule the scanner raises when a definition is too deep or too large to scan whole. */
export const SCAN_LIMIT_RULE_ID = 'MCP-S001';

// Word separators inside a phrase: spaces, or `_`/`-` so that property names are caught too.
const SEP = '[\\s_-]+';
// Word edges that treat `_` as a separator (`\\b` does not): `ignore_previous_instructions` is three words.
const LETTER_START = '(?<![a-z])';
const LETTER_END = '(?![a-z])';

export const POISONING_RULES: readonly PoisoningRule[] = [
  {
    id: 'MCP-P001',
    kind: 'instruction',
    reason: 'tells the model to ignore, forget or override its instructions, rules or prompt',
    pattern:
      `${LETTER_START}(?:ignore|disregard|forget|override|bypass)${SEP}(?:(?:all|any|the|of)${SEP})?` +
      `(?:(?:previous|prior|above|earlier|other|original|system|safety|your|user[’']?s?|existing)${SEP})?` +
      `(?:(?:previous|prior|above|earlier|other|original|system|safety|your|user[’']?s?|existing)${SEP})?` +
      `(?:instructions?|rules?|prompts?|guidelines|directives|polic(?:y|ies)|guardrails|restrictions|constraints)${LETTER_END}`,
  },
  {
    id: 'MCP-P002',
    kind: 'instruction',
    reason: 'tells the model to call a tool first, before or after every other call',
    pattern:
      '\\bbefore\\s+(?:using|calling|invoking|running|executing)\\s+(?:this|any|every|each|all|other|another)\\b' +
      '|\\bbefore\\s+(?:any|every|each)\\s+(?:other\\s+)?(?:tool|call)' +
      '|\\b(?:always|must)\\s+(?:always\\s+|first\\s+)?(?:call|invoke|run|use)\\s+[\\w.-]{1,64}\\s+(?:first|before)\\b' +
      '|\\bcall\\s+this\\s+tool\\s+(?:first|before|after)\\s+(?:every|each|any|all)\\b',
  },
  {
    id: 'MCP-P003',
    kind: 'instruction',
    reason: 'names a file that holds keys or credentials (ssh keys, cloud credentials, password files)',
    pattern:
      '~\\/\\.(?:ssh|aws|gnupg|kube|docker|netrc|npmrc|pypirc|git-credentials)\\b' +
      '|\\bid_(?:rsa|dsa|ecdsa|ed25519)\\b|\\/etc\\/(?:passwd|shadow)\\b|\\.aws\\/credentials\\b|\\bauthorized_keys\\b',
  },
  {
    id: 'MCP-P004',
    kind: 'instruction',
    reason: 'tells the model to read, include or send secrets (keys, tokens, passwords, environment variables)',
    pattern:
      `${LETTER_START}(?:read|send|include|append|attach|forward|upload|exfiltrate|leak|copy|embed|paste|put|pass|share|post|dump|collect)${LETTER_END}` +
      '[^.!?\\n]{0,60}?' +
      `(?:${LETTER_START}(?:api[\\s_-]?keys?|private[\\s_-]?keys?|credentials|passwords?|secrets|access[\\s_-]?tokens?|auth(?:entication)?[\\s_-]?tokens?` +
      '|session[\\s_-]?tokens?|env(?:ironment)?[\\s_-]?var(?:iable)?s?|ssh[\\s_-]?keys?|cookies|seed\\s+phrase)' +
      `${LETTER_END}|\\.env${LETTER_END})`,
  },
  {
    id: 'MCP-P005',
    kind: 'instruction',
    reason: 'tells the model to hide something from the user or act silently',
    pattern:
      "\\b(?:do\\s+not|don'?t|never|without)\\s+(?:tell(?:ing)?|inform(?:ing)?|notify(?:ing)?|mention(?:ing)?|reveal(?:ing)?|show(?:ing)?|alert(?:ing)?|let(?:ting)?|ask(?:ing)?)\\s+(?:the\\s+)?users?\\b" +
      '|\\b(?:hide|conceal|keep)\\b[^.!?\\n]{0,40}?\\bfrom\\s+the\\s+user\\b' +
      '|\\b(?:secretly|silently|covertly|quietly|discreetly)\\s+(?:send|forward|upload|copy|bcc|add|include|call|read|change|modify|replace|post|transmit)\\b' +
      '|\\bthe\\s+user\\s+(?:must|should)\\s+not\\s+(?:know|see|notice|be\\s+told)\\b',
  },
  {
    id: 'MCP-P006',
    kind: 'instruction',
    reason: 'a tag that poses as a message to the model (<IMPORTANT>, <system>, <instructions>)',
    pattern: '<\\/?\\s*(?:important|system|instructions?|admin|hidden|secret|assistant)\\b[^<>]{0,40}>',
  },
  {
    id: 'MCP-P007',
    kind: 'instruction',
    reason: 'tells the model to copy or redirect messages to another recipient (BCC, changed recipient)',
    pattern:
      '\\b(?:always|also|secretly|silently)\\s+(?:bcc|cc|blind[\\s-]copy)\\b|\\bbcc\\s+[^\\s@]{1,64}@' +
      '|\\b(?:change|replace|set)\\s+the\\s+(?:recipients?|destination|receiver|to\\s+address)\\s+to\\b',
  },
  {
    id: 'MCP-P008',
    kind: 'instruction',
    reason: "tries to change the model's role or mode (you are now, new instructions, system prompt)",
    pattern: '\\byou\\s+are\\s+now\\s+(?:a|an|in)\\b|\\bnew\\s+instructions\\b|\\b(?:developer|unrestricted|god)\\s+mode\\b|\\bsystem\\s+prompt\\b|\\bjailbreak',
  },
  {
    id: 'MCP-P009',
    kind: 'instruction',
    reason: 'tells the model to send data to a URL',
    pattern: '\\b(?:send|post|upload|forward|transmit|exfiltrate)\\b[^.!?\\n]{0,60}?\\bto\\s+https?:\\/\\/',
  },
  {
    id: 'MCP-H001',
    kind: 'hidden-unicode',
    reason: 'zero-width character (U+200B-U+200D, U+2060, U+FEFF): text a reviewer cannot see',
    pattern: '[\\u200B-\\u200D\\u2060\\uFEFF]',
  },
  {
    id: 'MCP-H002',
    kind: 'hidden-unicode',
    reason: 'bidirectional control (U+202A-U+202E, U+2066-U+2069): the text reads differently than it displays',
    pattern: '[\\u202A-\\u202E\\u2066-\\u2069]',
  },
  {
    id: 'MCP-H003',
    kind: 'hidden-unicode',
    reason: 'Unicode tag characters (U+E0000-U+E007F): invisible text a model can still read',
    pattern: '[\\u{E0000}-\\u{E007F}]',
  },
  {
    id: 'MCP-E001',
    kind: 'encoded',
    reason: 'a run of 64 or more base64 characters (not an image data URI): an encoded payload no reviewer reads',
    // A whole run only (not the tail of a longer one), and not the payload of an image data URI
    // (`icons[].src` in real catalogs): a picture is not text a model reads as instructions.
    pattern: '(?<![A-Za-z0-9+/])(?<!data:image\\/[\\w.+-]{1,40};base64,)[A-Za-z0-9+/]{64,}={0,2}',
  },
  {
    id: SCAN_LIMIT_RULE_ID,
    kind: 'limit',
    reason: 'the definition nests too deep or holds too many values: the part past the cap was not scanned',
  },
];
