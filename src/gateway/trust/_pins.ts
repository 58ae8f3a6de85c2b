/**
 * Pins: what an upstream puts before the model becomes something the user approves. Each tool,
 * prompt, resource, resource template and the server's `instructions` is pinned by the sha256 of
 * its canonical JSON (the bytes the model reads, key order included), with its o200k tokens and the
 * date. Checking what an upstream offers against the pins says what is trusted and what is held
 * back (changed since pinned, or never pinned), with what changed field by field.
 * Pure: reading, locking and writing the file are `_pin-file.ts` and `_pin-lock.ts`.
 *
 * Every map in a pin file is keyed by names an upstream chose (`__proto__`, `constructor` and
 * `toString` are tool names like any other), so maps are null-prototype objects, read with
 * `Object.hasOwn` and rebuilt so after every parse and clone.
 */
import { canonicalJson, countTokens, sha256Hex } from '../../tokens/index.js';
import { isPlainObject, ownValue } from '../../json/index.js';

/**
 * The format name stays v1: the sections for prompts, resources, templates and instructions are
 * optional keys an older mcpctx reads past (and keeps when it rewrites the file), and a file
 * without them reads as it did.
 */
export const PIN_FILE_FORMAT = 'mcpctx-pins/v1';

/** How a first contact is treated: trust what is there (trust on first use), or trust nothing until approved. */
export type PinMode = 'tofu' | 'strict';

/** What a pin is of. `instructions` is the one text of an upstream's `initialize` answer. */
export type PinKind = 'tool' | 'prompt' | 'resource' | 'template' | 'instructions';

export const PIN_KINDS: readonly PinKind[] = ['tool', 'prompt', 'resource', 'template', 'instructions'];

export interface ToolPin {
  sha256: string;
  tokens: number;
  /** ISO date the definition was pinned (first contact or approval). */
  pinnedAt: string;
  /** The definition as pinned, so a later change can be shown field by field. */
  definition: unknown;
}

/** A definition seen and not trusted: new, or different from its pin. */
export interface PendingTool {
  kind: 'new' | 'changed';
  sha256: string;
  tokens: number;
  firstSeenAt: string;
  definition: unknown;
  /** The sha256 of this entry when `mcpctx gateway pins` last listed it: approving by name alone needs it to equal `sha256`. */
  shownSha256?: string;
  shownAt?: string;
}

/** One kind's pins of one upstream. */
export interface PinSection {
  pinned: Record<string, ToolPin>;
  pending: Record<string, PendingTool>;
  /** Definitions the user rejected, by key: held without being proposed again until they change. */
  rejected: Record<string, string>;
}

export interface UpstreamPins {
  /** The tools' section, flat as in the first pin files. */
  tools: Record<string, ToolPin>;
  pending: Record<string, PendingTool>;
  rejected: Record<string, string>;
  /**
   * True on an entry made by a check of another kind before the upstream's tools were ever
   * checked: their first contact is still to come (an entry without it has had its tools checked).
   */
  toolsUnchecked?: true;
  /** Absent until the upstream's prompts (resources, templates, instructions) were first checked. */
  prompts?: PinSection;
  resources?: PinSection;
  templates?: PinSection;
  instructions?: PinSection;
}

export interface PinFile {
  format: typeof PIN_FILE_FORMAT;
  upstreams: Record<string, UpstreamPins>;
}

/** Where each kind other than tools lives in an upstream's entry. */
const SECTION_KEYS = { prompt: 'prompts', resource: 'resources', template: 'templates', instructions: 'instructions' } as const;

/** The key of the one `instructions` entry. */
export const INSTRUCTIONS_KEY = 'instructions';

/** One thing offered: its key (a tool's or prompt's name, a resource's URI, a template, `instructions`) and what is pinned. */
export interface PinItem {
  key: string;
  definition: unknown;
}

export interface FieldChange {
  /** JSON path inside the definition, e.g. `description` or `inputSchema.properties.to`. */
  path: string;
  /** The values, as compact JSON cut to 200 characters; null when absent on that side. */
  before: string | null;
  after: string | null;
}

export interface HeldTool {
  upstream: string;
  /** The key: a tool's or prompt's name, a resource's URI, a template, or `instructions`. */
  tool: string;
  pinKind: PinKind;
  kind: 'new' | 'changed';
  /** The held definition's sha256. */
  sha256: string;
  /** Tokens of the pinned definition (null for a new one) and of the offered one. */
  tokensBefore: number | null;
  tokensAfter: number;
  changes: FieldChange[];
  /** True when the user rejected exactly this definition. */
  rejected: boolean;
}

export interface CatalogCheck {
  /** Keys offered and pinned with the same hash: the client may see and use them. */
  trusted: string[];
  held: HeldTool[];
  /** Pinned keys the upstream no longer offers. */
  removed: string[];
  /** The pins after the check: first-contact pins added (tofu), pending entries brought up to date. */
  next: PinFile;
}

const MAX_CHANGES = 50;
const SHOWN_CHARS = 200;

/** A map keyed by peer-chosen names: no prototype, so `__proto__` or `toString` is an ordinary key. */
export function ownRecord<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

function copyRecord<T>(map: Record<string, T>, copy: (value: T) => T): Record<string, T> {
  const result = ownRecord<T>();
  for (const [key, value] of Object.entries(map)) result[key] = copy(value);
  return result;
}

function cloneSection(section: PinSection): PinSection {
  return {
    pinned: copyRecord(section.pinned, (pin) => ({ ...pin, definition: structuredClone(pin.definition) })),
    pending: copyRecord(section.pending, (pending) => ({ ...pending, definition: structuredClone(pending.definition) })),
    rejected: copyRecord(section.rejected, (sha256) => sha256),
  };
}

/** A deep copy whose maps are null-prototype objects (what a parsed or cloned pin file is turned into before use). */
export function clonePins(pins: PinFile): PinFile {
  const upstreams = ownRecord<UpstreamPins>();
  for (const [name, entry] of Object.entries(pins.upstreams)) {
    const tools = cloneSection({ pinned: entry.tools, pending: entry.pending, rejected: entry.rejected });
    const copy: UpstreamPins = { tools: tools.pinned, pending: tools.pending, rejected: tools.rejected };
    if (entry.toolsUnchecked === true) copy.toolsUnchecked = true;
    for (const key of Object.values(SECTION_KEYS)) {
      const section = entry[key];
      if (section !== undefined) copy[key] = cloneSection(section);
    }
    upstreams[name] = copy;
  }
  return { format: PIN_FILE_FORMAT, upstreams };
}

export function emptyPinFile(): PinFile {
  return { format: PIN_FILE_FORMAT, upstreams: ownRecord() };
}

function emptySection(): PinSection {
  return { pinned: ownRecord(), pending: ownRecord(), rejected: ownRecord() };
}

/**
 * One kind's section of an upstream's entry; the tools' section is a view onto the flat maps (the
 * same objects, so writes land in the entry). Undefined when that kind was never checked.
 */
export function sectionOf(entry: UpstreamPins, kind: PinKind): PinSection | undefined {
  if (kind === 'tool') return { pinned: entry.tools, pending: entry.pending, rejected: entry.rejected };
  return entry[SECTION_KEYS[kind]];
}

/**
 * How a user names an entry: a tool by its name, the rest by `prompt:NAME`, `resource:URI`,
 * `template:TEMPLATE`, `instructions`. A tool whose name looks like one of those (`instructions`,
 * `prompt:x`) is shown as `tool:NAME`, so no two entries of an upstream share a name.
 */
export function displayKey(kind: PinKind, key: string): string {
  if (kind === 'instructions') return INSTRUCTIONS_KEY;
  if (kind !== 'tool') return `${kind}:${key}`;
  return key === INSTRUCTIONS_KEY || /^(?:tool|prompt|resource|template):/.test(key) ? `tool:${key}` : key;
}

/** A tool's name, when it is an object with a string name (what a listed tool must be to be pinned or called). */
export function toolName(tool: unknown): string | undefined {
  return isPlainObject(tool) && Object.hasOwn(tool, 'name') && typeof tool.name === 'string' ? tool.name : undefined;
}

/** The sha256 and o200k tokens of a definition's canonical JSON. */
export function toolFingerprint(tool: unknown): { sha256: string; tokens: number } {
  const canonical = canonicalJson(tool);
  return { sha256: sha256Hex(canonical), tokens: countTokens(canonical) };
}

/** A tool list as pin items (tools without a string name are not items: they are never offered). */
export function toolItems(tools: readonly unknown[]): PinItem[] {
  return tools.flatMap((tool) => {
    const name = toolName(tool);
    return name === undefined ? [] : [{ key: name, definition: tool }];
  });
}

/** Checks one upstream's tools against the pins (see `checkItems`). */
export function checkCatalog(pins: PinFile, upstream: string, tools: readonly unknown[], mode: PinMode, now: string): CatalogCheck {
  return checkItems(pins, upstream, 'tool', toolItems(tools), mode, now);
}

/**
 * Checks what one upstream offers of one kind against the pins. First contact (that kind never
 * checked for the upstream): `tofu` pins every item and trusts it; `strict` holds every item as
 * new. Later contacts trust an item only when its hash equals its pin; anything else is held and
 * recorded as pending (a definition the user rejected stays held and is marked so). `now` is the
 * ISO date recorded.
 */
export function checkItems(pins: PinFile, upstream: string, pinKind: PinKind, items: readonly PinItem[], mode: PinMode, now: string): CatalogCheck {
  const next = clonePins(pins);
  let entry = ownValue(next.upstreams, upstream);
  if (entry === undefined) {
    entry = { tools: ownRecord(), pending: ownRecord(), rejected: ownRecord(), ...(pinKind === 'tool' ? {} : { toolsUnchecked: true as const }) };
    next.upstreams[upstream] = entry;
  }
  const firstContact = pinKind === 'tool' ? ownValue(pins.upstreams, upstream) === undefined || entry.toolsUnchecked === true : sectionOf(entry, pinKind) === undefined;
  if (pinKind === 'tool') delete entry.toolsUnchecked;
  else if (firstContact) entry[SECTION_KEYS[pinKind]] = emptySection();
  const section = sectionOf(entry, pinKind) as PinSection;
  const trusted: string[] = [];
  const held: HeldTool[] = [];
  const offered = new Set<string>();
  for (const { key, definition } of items) {
    if (offered.has(key)) continue;
    offered.add(key);
    const { sha256, tokens } = toolFingerprint(definition);
    if (firstContact && mode === 'tofu') {
      section.pinned[key] = { sha256, tokens, pinnedAt: now, definition: structuredClone(definition) };
      trusted.push(key);
      continue;
    }
    const pin = ownValue(section.pinned, key);
    if (pin !== undefined && pin.sha256 === sha256) {
      delete section.pending[key];
      trusted.push(key);
      continue;
    }
    const kind = pin === undefined ? 'new' : 'changed';
    const rejected = ownValue(section.rejected, key) === sha256;
    const pending = ownValue(section.pending, key);
    if (!rejected && (pending === undefined || pending.sha256 !== sha256)) {
      // A new definition replaces the old pending one; what was shown of the old one is kept, so an
      // approval by name can say that the definition changed since it was listed (and refuse it).
      const shownBefore = pending?.shownSha256 === undefined ? {} : { shownSha256: pending.shownSha256, ...(pending.shownAt === undefined ? {} : { shownAt: pending.shownAt }) };
      section.pending[key] = { kind, sha256, tokens, firstSeenAt: now, definition: structuredClone(definition), ...shownBefore };
    }
    held.push({ upstream, tool: key, pinKind, kind, sha256, tokensBefore: pin?.tokens ?? null, tokensAfter: tokens, changes: fieldChanges(pin?.definition, definition, `(${pinKind})`), rejected });
  }
  // A pending entry for an item no longer offered says nothing about what is offered now.
  for (const key of Object.keys(section.pending)) if (!offered.has(key)) delete section.pending[key];
  const removed = Object.keys(section.pinned).filter((key) => !offered.has(key));
  return { trusted, held, removed, next };
}

/**
 * What differs between two definitions, path by path: objects are compared key by key (a key
 * present on one side only is a change at its path), anything else as a whole value. At most 50
 * changes are listed. `whole` names the path of the definition itself (`(tool)`, `(prompt)`...).
 */
export function fieldChanges(before: unknown, after: unknown, whole = '(tool)'): FieldChange[] {
  const changes: FieldChange[] = [];
  const walk = (left: unknown, right: unknown, path: string): void => {
    if (changes.length >= MAX_CHANGES) return;
    if (isPlainObject(left) && isPlainObject(right)) {
      const keys = [...new Set([...Object.keys(left), ...Object.keys(right)])];
      for (const key of keys) walk(ownValue(left, key), ownValue(right, key), path === '' ? key : `${path}.${key}`);
      return;
    }
    if (left === undefined && right === undefined) return;
    if (left !== undefined && right !== undefined && canonicalJson(left) === canonicalJson(right)) return;
    changes.push({ path: path === '' ? whole : path, before: shown(left), after: shown(right) });
  };
  walk(before, after, '');
  return changes;
}

function shown(value: unknown): string | null {
  if (value === undefined) return null;
  const text = canonicalJson(value);
  return text.length > SHOWN_CHARS ? `${text.slice(0, SHOWN_CHARS - 1)}\u2026` : text;
}

/** An entry named by the user. */
export interface PinTarget {
  upstream: string;
  pinKind: PinKind;
  /** The key in its section (a tool's name, a prompt's name, a URI, a template, `instructions`). */
  key: string;
  /** The hash (or a prefix of at least 12 hex characters) given with `NAME@SHA`, lower case. */
  sha256?: string;
}

/** Shortest hash prefix accepted after `@`, and the length listings show. */
export const SHA_PREFIX_CHARS = 12;

/** `NAME@SHA` split: the part after the last `@` is a hash when it is 12 to 64 hex characters. */
export function splitHash(name: string): { name: string; sha256?: string } {
  const at = name.lastIndexOf('@');
  const tail = at === -1 ? '' : name.slice(at + 1);
  if (at > 0 && tail.length >= SHA_PREFIX_CHARS && tail.length <= 64 && /^[0-9a-fA-F]+$/.test(tail)) return { name: name.slice(0, at), sha256: tail.toLowerCase() };
  return { name };
}

/** Every pending entry, as targets (for `--approve-all`). */
export function allPending(pins: PinFile): PinTarget[] {
  return Object.entries(pins.upstreams).flatMap(([upstream, entry]) =>
    PIN_KINDS.flatMap((pinKind) => Object.keys(sectionOf(entry, pinKind)?.pending ?? {}).map((key) => ({ upstream, pinKind, key }))),
  );
}

/**
 * Resolves the names given to `--approve` / `--reject` (each `NAME` or `upstream/NAME`, optionally
 * `@SHA`; a tool may also be named `tool:NAME`) against the pending entries. Unknown or ambiguous
 * names are returned as problems, each a sentence; nothing is guessed.
 */
export function resolvePending(pins: PinFile, names: readonly string[]): { targets: PinTarget[]; problems: string[] } {
  const targets: PinTarget[] = [];
  const problems: string[] = [];
  const pending = allPending(pins);
  for (const given of names) {
    const { name, sha256 } = splitHash(given);
    const candidates = pending.filter((target) => {
      const shownNames = [displayKey(target.pinKind, target.key), ...(target.pinKind === 'tool' ? [target.key, `tool:${target.key}`] : [])];
      return shownNames.some((shownName) => shownName === name || `${target.upstream}/${shownName}` === name);
    });
    const only = candidates[0];
    if (candidates.length === 1 && only !== undefined) targets.push(sha256 === undefined ? only : { ...only, sha256 });
    else if (candidates.length === 0) problems.push(`nothing pending is named ${JSON.stringify(name)}`);
    else {
      const where = candidates.map((target) => `${target.upstream}/${displayKey(target.pinKind, target.key)}`);
      problems.push(`${JSON.stringify(name)} names more than one pending entry (${where.join(', ')}); name it as one of these`);
    }
  }
  return { targets, problems };
}

/** The pending entry a target names, if it is still pending. */
export function pendingOf(pins: PinFile, target: PinTarget): PendingTool | undefined {
  return pendingIn(pins, target)?.pending;
}

/** The section a target's pending entry is in, with the entry, if it is still pending. */
function pendingIn(pins: PinFile, target: PinTarget) {
  const entry = ownValue(pins.upstreams, target.upstream);
  const section = entry === undefined ? undefined : sectionOf(entry, target.pinKind);
  const pending = ownValue(section?.pending, target.key);
  return section === undefined || pending === undefined ? undefined : { section, pending };
}

/** Pins the pending definitions of `targets` (approval); the pins of the others are untouched. */
export function approvePending(pins: PinFile, targets: readonly PinTarget[], now: string): PinFile {
  const next = clonePins(pins);
  for (const target of targets) {
    const found = pendingIn(next, target);
    if (found === undefined) continue;
    const { section, pending } = found;
    section.pinned[target.key] = { sha256: pending.sha256, tokens: pending.tokens, pinnedAt: now, definition: pending.definition };
    delete section.pending[target.key];
    delete section.rejected[target.key];
  }
  return next;
}

/** Drops the pending definitions of `targets`, remembering each as rejected: it stays held, and is not proposed again until it changes. */
export function rejectPending(pins: PinFile, targets: readonly PinTarget[]): PinFile {
  const next = clonePins(pins);
  for (const target of targets) {
    const found = pendingIn(next, target);
    if (found === undefined) continue;
    const { section, pending } = found;
    section.rejected[target.key] = pending.sha256;
    delete section.pending[target.key];
  }
  return next;
}

/** Records that every pending entry was shown as it is now (what `--approve NAME` without a hash compares with). */
export function markShown(pins: PinFile, now: string): PinFile {
  const next = clonePins(pins);
  for (const entry of Object.values(next.upstreams)) {
    for (const pinKind of PIN_KINDS) {
      for (const pending of Object.values(sectionOf(entry, pinKind)?.pending ?? {})) {
        if (pending.shownSha256 === pending.sha256) continue;
        pending.shownSha256 = pending.sha256;
        pending.shownAt = now;
      }
    }
  }
  return next;
}
