/**
 * The poisoning rules, as data: one list, each rule with a stable id and the reason a user reads.
 * Kept as a typed constant rather than a JSON file so it loads the same way from `src` (tests,
 * tsx) and `dist` (the build copies no non-TS files). Nothing here but literals.
 *
 * Patterns are compiled with flags `iu` and must stay linear-time on any input: no quantified
 * group that itself holds an open-ended quantifier (`(a+)+`, `(\s*x)*`), and every gap between
 * two words is bounded (`[^.!?\n]{0,60}?`). A test checks both on each pattern and runs every
 * rule over 1 MB inputs built to make a backtracking engine struggle.
 *
 * `instruction` rules read the text as normalized for matching (`_normalize.ts`: no accents, no
 * look-alikes, no invisible characters), so they are written in plain ASCII: German, French and
 * Spanish phrasings without their accents (`ubergehe`, `precedentes`, `contrasena`). The other
 * kinds read the raw text, since what they look for is what normalizing takes away.
 */

export type PoisoningRuleKind = 'instruction' | 'hidden-unicode' | 'encoded' | 'limit';

export interface PoisoningRule {
  /** Stable id (`MCP-P001`): P instruction patterns, H hidden Unicode, E encoded blobs, S scan limits. */
  readonly id: string;
  readonly reason: string;
  readonly kind: PoisoningRuleKind;
  /** A regular expression source, compiled with `iu`; absent for the rules the scanner raises itself (`SCANNER_RAISED_RULE_IDS`). */
  readonly pattern?: string;
}

/** The rule the scanner raises when a definition is too deep or too large to scan whole. */
export const SCAN_LIMIT_RULE_ID = 'MCP-S001';
/** The rule the scanner raises when base64 or base64url text decodes to readable words. */
export const DECODED_TEXT_RULE_ID = 'MCP-E002';
/** Rules without a pattern: the scanner decides when they apply. */
export const SCANNER_RAISED_RULE_IDS: ReadonlySet<string> = new Set([SCAN_LIMIT_RULE_ID, DECODED_TEXT_RULE_ID]);

// Word separators inside a phrase: spaces, or `_`/`-` so that property names are caught too.
const SEP = '[\\s_-]+';
// Word edges that treat `_` as a separator (`\\b` does not): `ignore_previous_instructions` is three words.
const LETTER_START = '(?<![a-z])';
const LETTER_END = '(?![a-z])';
/**
 * Phrasings that start where a word starts. The edge is checked once, before the alternation:
 * V8 skips ahead quickly over text that cannot start any alternative only when each begins with
 * a letter; an assertion at the head of each (`\b...|\b...`) made a rule ten times slower on 1 MB.
 */
const WORDS = (...alternatives: readonly string[]): string => `${LETTER_START}(?:${alternatives.join('|')})`;
/** `first` as whole words, a bounded gap within one sentence, then `second` (which may end a compound word). */
const THEN = (first: string, second: string, gap = 60): string => `(?:${first})${LETTER_END}[^.!?\\n]{0,${gap}}?(?:${second})${LETTER_END}`;

// German, French and Spanish phrasings of the rule families, accents already gone (see above).
const USER_DE = '(?:benutzer|nutzer|anwender|user)(?:in|innen|n)?';
const USER_FR = "l['’]\\s?utilisat(?:eur|rice)s?";
const USER_ES = '(?:al|el|a\\s+los|los)\\s+usuarios?';
const RULES_DE = '(?:anweisung|instruktion|regel|richtlinie|vorgabe|befehl|vorschrift)(?:en|n|e)?';
const SECRETS_DE = '(?:api|ssh|privaten?)[\\s_-]?schlussel|passw(?:o|oe)rt(?:er|e)?|kennw(?:o|oe)rt(?:er|e)?|zugangsdaten|anmeldedaten|tokens?|umgebungsvariablen|geheimnisse|cookies';
const SECRETS_FR = "cles?\\s+(?:api|privees?|ssh)|mots?\\s+de\\s+passe|identifiants|jetons?|variables\\s+d['’]\\s?environnement|secrets|cookies";
const SECRETS_ES = 'claves?\\s+(?:de\\s+)?(?:api|privadas?|ssh)|contrasenas?|credenciales|tokens?|variables\\s+de\\s+entorno|secretos|cookies';
const SEND_DE = 'sende|senden|schick|schicke|schicken|ubermittle|ubermitteln|ubertrage|ubertragen|lade|poste|leite|leiten';
const SEND_FR = 'envoie|envoyez|envoyer|transmets|transmettez|transmettre|poste[zr]?|televerse[zr]?|partage[zr]?';
const SEND_ES = 'envia|envie|enviar|manda|mande|mandar|sube|suba|subir|publica|reenvia|reenvie|comparte';
const ENGLISH_RULES_WORDS = '(?:previous|prior|above|earlier|other|original|system|safety|your|user[’\']?s?|existing)';

export const POISONING_RULES: readonly PoisoningRule[] = [
  {
    id: 'MCP-P001',
    kind: 'instruction',
    reason: 'tells the model to ignore, forget or override its instructions, rules or prompt',
    pattern: WORDS(
      `(?:ignore|disregard|forget|override|bypass)${SEP}(?:(?:all|any|the|of)${SEP})?(?:${ENGLISH_RULES_WORDS}${SEP})?(?:${ENGLISH_RULES_WORDS}${SEP})?` +
        `(?:instructions?|rules?|prompts?|guidelines|directives|polic(?:y|ies)|guardrails|restrictions|constraints)${LETTER_END}`,
      // German: "Ignoriere alle vorherigen Anweisungen", "die Regeln sind ab jetzt ungultig".
      THEN('ignoriere|ignorieren|vergiss|vergessen|missachte|missachten|ubergehe|ubergehen|umgehe|umgehen', RULES_DE, 40),
      THEN(`[a-z]{0,30}${RULES_DE}`, 'ignorieren|vergessen|missachten|ubergehen|umgehen|ungultig|aufgehoben', 40),
      // French: "Ignorez toutes les instructions precedentes", "ne tenez pas compte des consignes".
      `(?:ignore[rz]?|oublie[rz]?|outrepasse[rz]?|contourne[rz]?|neglige[rz]?)\\s+(?:(?:toutes?|tous|les|tes|vos|des|ces)\\s+)?(?:(?:les|tes|vos|ces)\\s+)?(?:instructions|consignes|regles|directives|ordres|garde-fous)${LETTER_END}`,
      'ne\\s+(?:tenez|tiens)\\s+(?:pas|plus)\\s+compte\\s+des?\\s+(?:instructions|consignes|regles|directives)\\b',
      // Spanish: "Ignora todas las instrucciones anteriores", "olvida tus reglas".
      `(?:ignora[rd]?|ignore[n]?|olvida[rd]?|olvide[n]?|omite|omitir|descarta[r]?)\\s+(?:(?:todas?|todos|las|los|tus|sus)\\s+)?(?:(?:las|los|tus|sus)\\s+)?(?:instrucciones|reglas|indicaciones|directrices|normas|ordenes|restricciones)${LETTER_END}`,
    ),
  },
  {
    id: 'MCP-P002',
    kind: 'instruction',
    reason: 'tells the model to call a tool first, before or after every other call',
    pattern: WORDS(
      'before\\s+(?:using|calling|invoking|running|executing)\\s+(?:this|any|every|each|all|other|another)\\b',
      'before\\s+(?:any|every|each)\\s+(?:other\\s+)?(?:tool|call)',
      '(?:always|must)\\s+(?:always\\s+|first\\s+)?(?:call|invoke|run|use)\\s+[\\w.-]{1,64}\\s+(?:first|before)\\b',
      'call\\s+this\\s+tool\\s+(?:first|before|after)\\s+(?:every|each|any|all)\\b',
      // German: "Bevor du dieses Tool verwendest", "vor jedem anderen Aufruf", "rufe immer zuerst X auf".
      THEN('bevor', '(?:tool|werkzeug|funktion)(?:s|e)?', 40),
      'vor\\s+(?:jedem|jeder|allen)\\s+(?:anderen\\s+)?(?:tool|werkzeug|aufruf|funktion)',
      '(?:immer|stets)\\s+(?:zuerst|zunachst|vorher)\\b',
      // French: "Avant d'utiliser cet outil", "avant tout autre appel", "appelle toujours X d'abord".
      "avant\\s+d['’]\\s?(?:utiliser|appeler|invoquer|executer)\\s+(?:cet|cette|ce|tout|toute|chaque|un\\s+autre|une\\s+autre|n['’]\\s?importe)",
      'avant\\s+(?:tout|chaque)\\s+(?:autre\\s+)?(?:appel|outil)',
      THEN('(?:appelle[zr]?|utilise[zr]?|execute[zr]?)\\s+toujours|toujours\\s+(?:appeler|utiliser|executer)', "d['’]\\s?abord|en\\s+premier|avant", 40),
      // Spanish: "Antes de usar esta herramienta", "antes de cada llamada", "llama siempre primero a X".
      'antes\\s+de\\s+(?:usar|utilizar|llamar|invocar|ejecutar)\\s+(?:esta|este|cualquier|otra|otro|cada)\\b',
      'antes\\s+de\\s+(?:cada|cualquier)\\s+(?:otra\\s+)?(?:llamada|herramienta)',
      THEN('(?:llama|llame|usa|utiliza|utilice|ejecuta|ejecute)\\s+siempre|siempre\\s+(?:llama|llame|usa|utiliza|utilice|ejecuta|ejecute|llamar|usar|utilizar|ejecutar)', 'primero|antes', 40),
    ),
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
    pattern: WORDS(
      '(?:read|send|include|append|attach|forward|upload|exfiltrate|leak|copy|embed|paste|put|pass|share|post|dump|collect)' +
        `${LETTER_END}[^.!?\\n]{0,60}?` +
        `(?:${LETTER_START}(?:api[\\s_-]?keys?|private[\\s_-]?keys?|credentials|passwords?|secrets|access[\\s_-]?tokens?|auth(?:entication)?[\\s_-]?tokens?` +
        '|session[\\s_-]?tokens?|env(?:ironment)?[\\s_-]?var(?:iable)?s?|ssh[\\s_-]?keys?|cookies|seed\\s+phrase)' +
        `${LETTER_END}|\\.env${LETTER_END})`,
      THEN(`lese|lesen|${SEND_DE}|fuge|fugen|hange|hangen|kopiere|kopieren|gib|teile|teilen|sammle|sammeln`, SECRETS_DE),
      THEN(`lis|lisez|lire|${SEND_FR}|inclus|incluez|inclure|joins|joignez|joindre|ajoute[zr]?|copie[zr]?|colle[zr]?|recupere[zr]?`, SECRETS_FR),
      THEN(`lee|lea|leer|${SEND_ES}|incluye|incluya|incluir|adjunta|adjunte|adjuntar|copia|copie|copiar|pega|pegue|agrega|agregue|anade|anada`, SECRETS_ES),
    ),
  },
  {
    id: 'MCP-P005',
    kind: 'instruction',
    reason: 'tells the model to hide something from the user or act silently',
    pattern: WORDS(
      "(?:do\\s+not|don'?t|never|without)\\s+(?:tell(?:ing)?|inform(?:ing)?|notify(?:ing)?|mention(?:ing)?|reveal(?:ing)?|show(?:ing)?|alert(?:ing)?|let(?:ting)?|ask(?:ing)?)\\s+(?:the\\s+)?users?\\b",
      '(?:hide|conceal|keep)\\b[^.!?\\n]{0,40}?\\bfrom\\s+the\\s+user\\b',
      '(?:secretly|silently|covertly|quietly|discreetly)\\s+(?:send|forward|upload|copy|bcc|add|include|call|read|change|modify|replace|post|transmit)\\b',
      'the\\s+user\\s+(?:must|should)\\s+not\\s+(?:know|see|notice|be\\s+told)\\b',
      // German: "Sag dem Benutzer nichts davon", "ohne den Nutzer zu informieren", "heimlich".
      `(?:sag|sage|sagen|erzahl|erzahle|erzahlen|teil|teile|teilen|informier|informiere|informieren|verrat|verrate|verraten|zeig|zeige|zeigen|erwahn|erwahne|erwahnen|melde|melden)\\s+(?:es\\s+|das\\s+|davon\\s+)?(?:dem|den|der|die)\\s+${USER_DE}\\s+(?:davon\\s+|es\\s+|das\\s+)?(?:nicht|nichts|niemals|nie)\\b`,
      `ohne\\s+(?:den|die|dem)\\s+${USER_DE}[^.!?\\n]{0,30}?\\bzu\\s+(?:informieren|fragen|benachrichtigen|warnen)\\b`,
      `${USER_DE}\\s+(?:darf|soll|sollte|muss)\\s+(?:davon\\s+|das\\s+|es\\s+)?(?:nicht|nichts|niemals)\\s+(?:wissen|erfahren|merken|sehen|bemerken)\\b`,
      THEN('verberg|verberge|verbergen|verbirg|verheimliche|verheimlichen|verschweige|verschweigen', `vor\\s+(?:dem|der|den)\\s+${USER_DE}`, 40),
      `vor\\s+(?:dem|der|den)\\s+${USER_DE}\\s+(?:verbergen|verheimlichen|verschweigen|geheim)`,
      '(?:heimlich|unbemerkt|stillschweigend|insgeheim)\\b',
      // French: "Ne dis rien a l'utilisateur", "sans prevenir l'utilisateur", "a l'insu de", "secretement".
      `n(?:e\\s+|['’]\\s?)(?:le\\s+|lui\\s+|en\\s+|rien\\s+|leur\\s+)?(?:dis|dites|mentionne[zr]?|signale[zr]?|revele[zr]?|montre[zr]?|informe[zr]?|previens|prevenez|avertis|avertissez|parle[zr]?|affiche[zr]?)\\b[^.!?\\n]{0,30}?\\b${USER_FR}`,
      `sans\\s+(?:en\\s+)?(?:informer|prevenir|avertir|aviser|le\\s+dire\\s+a|demander\\s+a|consulter)\\s+${USER_FR}`,
      `${USER_FR}\\s+ne\\s+(?:doit|devrait)\\s+(?:pas|jamais|rien)\\s+(?:savoir|voir|remarquer)`,
      "a\\s+l['’]\\s?insu\\s+de\\b",
      '(?:secretement|en\\s+secret|en\\s+cachette)\\b',
      '(?:silencieusement|discretement)\\s+(?:envoie|envoyez|transmets|transmettez|copie[zr]?|ajoute[zr]?|lis|lisez|appelle[zr]?|modifie[zr]?|remplace[zr]?)\\b',
      // Spanish: "No le digas nada al usuario", "sin avisar al usuario", "a espaldas del usuario", "en secreto".
      `no\\s+(?:le\\s+|les\\s+|se\\s+lo\\s+|lo\\s+)?(?:digas|diga|digan|decir|menciones|mencione|informes|informe|avises|avise|reveles|revele|muestres|muestre|cuentes|cuente|notifiques|notifique|comuniques|comunique)\\b[^.!?\\n]{0,30}?\\b${USER_ES}\\b`,
      `sin\\s+(?:informar|avisar|decir|notificar|preguntar|consultar)(?:le|les|selo)?\\s+${USER_ES}\\b`,
      'a\\s+espaldas\\s+del\\s+usuario\\b',
      'el\\s+usuario\\s+no\\s+(?:debe|deberia|puede)\\s+(?:saber|ver|notar|enterarse)\\b',
      '(?:en\\s+secreto|secretamente|a\\s+escondidas)\\b',
      '(?:silenciosamente|discretamente)\\s+(?:envia|envie|reenvia|copia|copie|agrega|incluye|llama|lee|modifica|cambia)\\b',
    ),
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
    pattern: WORDS(
      '(?:always|also|secretly|silently)\\s+(?:bcc|cc|blind[\\s-]copy)\\b',
      'bcc\\s+[^\\s@]{1,64}@',
      '(?:change|replace|set)\\s+the\\s+(?:recipients?|destination|receiver|to\\s+address)\\s+to\\b',
      '(?:blindkopie|copie\\s+cachee|copia\\s+oculta)\\b',
      '(?:ander|andere|andern|ersetze|ersetzen)\\s+(?:den|die)\\s+empfanger',
      '(?:change[zr]?|remplace[zr]?|modifie[zr]?)\\s+(?:le|les)\\s+destinataires?\\b',
      '(?:cambia|cambie|cambiar|reemplaza|reemplace|sustituye|sustituya|modifica)\\s+(?:el|los)\\s+destinatarios?\\b',
    ),
  },
  {
    id: 'MCP-P008',
    kind: 'instruction',
    reason: "tries to change the model's role or mode (you are now, new instructions, system prompt)",
    pattern: WORDS(
      'you\\s+are\\s+now\\s+(?:a|an|in)\\b',
      'new\\s+instructions\\b',
      '(?:developer|unrestricted|god)\\s+mode\\b',
      'system\\s+prompt\\b',
      'jailbreak',
      'du\\s+bist\\s+(?:jetzt|nun|ab\\s+sofort)\\b',
      'ab\\s+(?:jetzt|sofort)\\s+bist\\s+du\\b',
      'neue\\s+anweisungen\\b',
      'system-?prompt\\b',
      'entwicklermodus\\b',
      '(?:tu\\s+es|vous\\s+etes)\\s+(?:maintenant|desormais)\\b',
      'nouvelles\\s+(?:instructions|consignes)\\b',
      'mode\\s+developpeur\\b',
      '(?:prompt|invite)\\s+systeme\\b',
      'ahora\\s+eres\\b',
      'nuevas\\s+instrucciones\\b',
      'modo\\s+(?:desarrollador|sin\\s+restricciones)\\b',
      'prompt\\s+del\\s+sistema\\b',
    ),
  },
  {
    id: 'MCP-P009',
    kind: 'instruction',
    reason: 'tells the model to send data to a URL',
    pattern: WORDS(
      '(?:send|post|upload|forward|transmit|exfiltrate)\\b[^.!?\\n]{0,60}?\\bto\\s+https?:\\/\\/',
      `(?:${SEND_DE}|${SEND_FR}|${SEND_ES})\\b[^.!?\\n]{0,60}?\\b(?:an|nach|zu|a|vers|sur|hacia|al)\\s+https?:\\/\\/`,
    ),
  },
  {
    id: 'MCP-P010',
    kind: 'instruction',
    reason: 'an image link (Markdown or <img>) whose URL has a query or a placeholder: rendering it sends data to that host',
    // The URL runs greedily over characters that cannot start the tell-tale part, then backs off
    // to find it: linear per start, and a start needs `![` or `<img`.
    pattern:
      '!\\[[^\\]\\n]{0,200}\\]\\(\\s{0,5}<?https?:\\/\\/[^\\s)?{$]{1,400}(?:[?{$]|%7b)' +
      '|<img\\b[^<>]{0,200}?\\bsrc\\s{0,3}=\\s{0,3}["\']?https?:\\/\\/[^\\s"\'<>?{$]{1,400}(?:[?{$]|%7b)',
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
    id: 'MCP-H004',
    kind: 'hidden-unicode',
    reason: 'a run of variation selectors (U+FE00-U+FE0F, U+E0100-U+E01EF): bytes hidden after a visible character',
    // A variation sequence is one character and one selector; two in a row carry nothing but data.
    pattern: '[\\uFE00-\\uFE0F\\u{E0100}-\\u{E01EF}]{2}',
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
    id: DECODED_TEXT_RULE_ID,
    kind: 'encoded',
    reason: 'base64 or base64url (whole, split over lines or broken by invisible characters) that decodes to readable words: a message no reviewer reads',
  },
  {
    id: SCAN_LIMIT_RULE_ID,
    kind: 'limit',
    reason: 'the definition nests too deep or holds too many values: the part past the cap was not scanned',
  },
];
