/**
 * Tool pins: a catalog becomes something the user approves. Each tool an upstream offers is pinned
 * by the sha256 of its canonical JSON (the bytes the model reads, key order included), with its
 * o200k tokens and the date. Checking a catalog against the pins says which tools are trusted and
 * which are held back (changed since pinned, or never pinned), with what changed field by field.
 * Pure: reading and writing the file is `_pin-file.ts`.
 */
import { canonicalJson, countTokens, sha256Hex } from '../../tokens/index.js';
import { isPlainObject } from '../../json/index.js';

export const PIN_FILE_FORMAT = 'mcpctx-pins/v1';

/** How a first contact is treated: trust what is there (trust on first use), or trust nothing until approved. */
export type PinMode = 'tofu' | 'strict';

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
}

export interface UpstreamPins {
  tools: Record<string, ToolPin>;
  pending: Record<string, PendingTool>;
  /** Definitions the user rejected, by tool: held without being proposed again until they change. */
  rejected: Record<string, string>;
}

export interface PinFile {
  format: typeof PIN_FILE_FORMAT;
  upstreams: Record<string, UpstreamPins>;
}

export interface FieldChange {
  /** JSON path inside the tool definition, e.g. `description` or `inputSchema.properties.to`. */
  path: string;
  /** The values, as compact JSON cut to 200 characters; null when absent on that side. */
  before: string | null;
  after: string | null;
}

export interface HeldTool {
  upstream: string;
  tool: string;
  kind: 'new' | 'changed';
  /** Tokens of the pinned definition (null for a new tool) and of the offered one. */
  tokensBefore: number | null;
  tokensAfter: number;
  changes: FieldChange[];
  /** True when the user rejected exactly this definition. */
  rejected: boolean;
}

export interface CatalogCheck {
  /** Names offered and pinned with the same hash: the client may see and call them. */
  trusted: string[];
  held: HeldTool[];
  /** Pinned tools the upstream no longer offers. */
  removed: string[];
  /** The pins after the check: first-contact pins added (tofu), pending entries brought up to date. */
  next: PinFile;
}

const MAX_CHANGES = 50;
const SHOWN_CHARS = 200;

export function emptyPinFile(): PinFile {
  return { format: PIN_FILE_FORMAT, upstreams: {} };
}

/** A tool's name, when it is an object with a string name (what a listed tool must be to be pinned or called). */
export function toolName(tool: unknown): string | undefined {
  return isPlainObject(tool) && typeof tool.name === 'string' ? tool.name : undefined;
}

/** The sha256 and o200k tokens of a tool's canonical JSON. */
export function toolFingerprint(tool: unknown): { sha256: string; tokens: number } {
  const canonical = canonicalJson(tool);
  return { sha256: sha256Hex(canonical), tokens: countTokens(canonical) };
}

/**
 * Checks one upstream's catalog against the pins. First contact (no entry for the upstream):
 * `tofu` pins every tool and trusts it; `strict` holds every tool as new. Later contacts trust a
 * tool only when its hash equals its pin; anything else is held and recorded as pending (a
 * definition the user rejected stays held and is marked so). `now` is the ISO date recorded.
 */
export function checkCatalog(pins: PinFile, upstream: string, tools: readonly unknown[], mode: PinMode, now: string): CatalogCheck {
  const next: PinFile = structuredClone(pins);
  const firstContact = next.upstreams[upstream] === undefined;
  const entry: UpstreamPins = next.upstreams[upstream] ?? { tools: {}, pending: {}, rejected: {} };
  next.upstreams[upstream] = entry;
  const trusted: string[] = [];
  const held: HeldTool[] = [];
  const offered = new Set<string>();
  for (const tool of tools) {
    const name = toolName(tool);
    if (name === undefined) continue;
    offered.add(name);
    const { sha256, tokens } = toolFingerprint(tool);
    if (firstContact && mode === 'tofu') {
      entry.tools[name] = { sha256, tokens, pinnedAt: now, definition: structuredClone(tool) };
      trusted.push(name);
      continue;
    }
    const pin = entry.tools[name];
    if (pin !== undefined && pin.sha256 === sha256) {
      delete entry.pending[name];
      trusted.push(name);
      continue;
    }
    const kind = pin === undefined ? 'new' : 'changed';
    const rejected = entry.rejected[name] === sha256;
    const pending = entry.pending[name];
    if (!rejected && (pending === undefined || pending.sha256 !== sha256)) {
      entry.pending[name] = { kind, sha256, tokens, firstSeenAt: now, definition: structuredClone(tool) };
    }
    held.push({ upstream, tool: name, kind, tokensBefore: pin?.tokens ?? null, tokensAfter: tokens, changes: fieldChanges(pin?.definition, tool), rejected });
  }
  // A pending entry for a tool no longer offered says nothing about what is offered now.
  for (const name of Object.keys(entry.pending)) if (!offered.has(name)) delete entry.pending[name];
  const removed = Object.keys(entry.tools).filter((name) => !offered.has(name));
  return { trusted, held, removed, next };
}

/**
 * What differs between two definitions, path by path: objects are compared key by key (a key
 * present on one side only is a change at its path), anything else as a whole value. At most 50
 * changes are listed.
 */
export function fieldChanges(before: unknown, after: unknown): FieldChange[] {
  const changes: FieldChange[] = [];
  const walk = (left: unknown, right: unknown, path: string): void => {
    if (changes.length >= MAX_CHANGES) return;
    if (isPlainObject(left) && isPlainObject(right)) {
      const keys = [...new Set([...Object.keys(left), ...Object.keys(right)])];
      for (const key of keys) walk(left[key], right[key], path === '' ? key : `${path}.${key}`);
      return;
    }
    if (left === undefined && right === undefined) return;
    if (left !== undefined && right !== undefined && canonicalJson(left) === canonicalJson(right)) return;
    changes.push({ path: path === '' ? '(tool)' : path, before: shown(left), after: shown(right) });
  };
  walk(before, after, '');
  return changes;
}

function shown(value: unknown): string | null {
  if (value === undefined) return null;
  const text = canonicalJson(value);
  return text.length > SHOWN_CHARS ? `${text.slice(0, SHOWN_CHARS - 1)}\u2026` : text;
}

/** A tool named by the user: `upstream/tool`, or a tool name that only one upstream has pending. */
export interface PinTarget {
  upstream: string;
  tool: string;
}

/**
 * Resolves the names given to `--approve` / `--reject` against the pending entries. Unknown or
 * ambiguous names are returned as problems, each a sentence; nothing is guessed.
 */
export function resolvePending(pins: PinFile, names: readonly string[]): { targets: PinTarget[]; problems: string[] } {
  const targets: PinTarget[] = [];
  const problems: string[] = [];
  for (const name of names) {
    const slash = name.indexOf('/');
    const candidates: PinTarget[] = [];
    for (const [upstream, entry] of Object.entries(pins.upstreams)) {
      for (const tool of Object.keys(entry.pending)) {
        if (slash === -1 ? tool === name : `${upstream}/${tool}` === name) candidates.push({ upstream, tool });
      }
    }
    if (candidates.length === 1) targets.push(candidates[0] as PinTarget);
    else if (candidates.length === 0) problems.push(`nothing pending is named ${JSON.stringify(name)}`);
    else problems.push(`${JSON.stringify(name)} is pending on ${candidates.map((target) => target.upstream).join(' and ')}; name it as upstream/tool`);
  }
  return { targets, problems };
}

/** Pins the pending definitions of `targets` (approval); the pins of the others are untouched. */
export function approvePending(pins: PinFile, targets: readonly PinTarget[], now: string): PinFile {
  const next = structuredClone(pins);
  for (const { upstream, tool } of targets) {
    const entry = next.upstreams[upstream];
    const pending = entry?.pending[tool];
    if (entry === undefined || pending === undefined) continue;
    entry.tools[tool] = { sha256: pending.sha256, tokens: pending.tokens, pinnedAt: now, definition: pending.definition };
    delete entry.pending[tool];
    delete entry.rejected[tool];
  }
  return next;
}

/** Every pending definition, as targets (for `--approve-all`). */
export function allPending(pins: PinFile): PinTarget[] {
  return Object.entries(pins.upstreams).flatMap(([upstream, entry]) => Object.keys(entry.pending).map((tool) => ({ upstream, tool })));
}

/** Drops the pending definitions of `targets`, remembering each as rejected: it stays held, and is not proposed again until it changes. */
export function rejectPending(pins: PinFile, targets: readonly PinTarget[]): PinFile {
  const next = structuredClone(pins);
  for (const { upstream, tool } of targets) {
    const entry = next.upstreams[upstream];
    const pending = entry?.pending[tool];
    if (entry === undefined || pending === undefined) continue;
    entry.rejected[tool] = pending.sha256;
    delete entry.pending[tool];
  }
  return next;
}
