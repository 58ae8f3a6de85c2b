/**
 * `mcpctx gateway pins FILE`: what is pinned and what waits for approval, with what changed; and
 * approving or rejecting pending definitions. Everything runs holding the pin file's lock, the
 * file read inside it, so a gateway checking at the same moment loses nothing and neither does
 * this. A listing records what it showed (the sha256 of each pending entry): approving by name
 * alone approves only a definition still the one last shown; `NAME@SHA` approves only that
 * definition. A file that cannot be read is never rewritten: IO, so the user repairs or removes
 * it knowingly.
 */
import { ownValue } from '../../json/index.js';
import { McpctxError } from '../../errors/index.js';
import { pinFileDocument, type LockedPins, type PinDocument } from './_pin-document.js';
import { scanText, scanTool, type Finding } from './scan/index.js';
import {
  PIN_KINDS,
  SHA_PREFIX_CHARS,
  allPending,
  approvePending,
  displayKey,
  fieldChanges,
  markShown,
  pendingOf,
  rejectPending,
  resolvePending,
  sectionOf,
  type FieldChange,
  type PinFile,
  type PinKind,
  type PinTarget,
} from './_pins.js';

/** An entry this run approved or rejected, as it was: what the user bound themselves to. */
export interface PinChange {
  upstream: string;
  pinKind: PinKind;
  /** How the user names it: `tool`, `prompt:NAME`, `resource:URI`, `template:TEMPLATE`, `instructions`. */
  name: string;
  sha256: string;
  tokens: number;
}

/** An approval refused because the pending definition is not the one the user saw. */
export interface PinRefusal {
  upstream: string;
  pinKind: PinKind;
  name: string;
  /** The pending definition now. */
  sha256: string;
  /** What the user bound the approval to: the hash given, or the one last shown (null: never shown). */
  expected: string | null;
  reason: string;
}

export interface PinListing {
  file: string;
  /** False when the file does not exist yet (no upstream contacted). */
  exists: boolean;
  upstreams: Array<{
    name: string;
    pinned: Array<{ tool: string; pinKind: PinKind; sha256: string; tokens: number; pinnedAt: string }>;
    pending: Array<{
      /** How the user names it (`--approve upstream/NAME@SHA`). */
      tool: string;
      pinKind: PinKind;
      kind: 'new' | 'changed';
      sha256: string;
      tokensBefore: number | null;
      tokensAfter: number;
      firstSeenAt: string;
      changes: FieldChange[];
      /** What the poisoning scan finds in the pending definition: read before approving. */
      findings: Finding[];
    }>;
    rejected: string[];
  }>;
  /** What this run changed (empty for a listing, and when anything was refused). */
  approved: PinChange[];
  rejected: PinChange[];
  /** Approvals refused because the definition changed since it was shown or is not the hash given: nothing was changed. */
  refused: PinRefusal[];
}

export interface ManagePinsOptions {
  /** The pin file; or `document`, the pins in the shared state. */
  file?: string;
  document?: PinDocument;
  /** `NAME`, `upstream/NAME`, either with `@SHA` (the whole sha256 or a prefix of at least 12 hex characters). */
  approve?: readonly string[];
  /** Pins every pending definition, provided each is the one last shown; otherwise nothing. */
  approveAll?: boolean;
  reject?: readonly string[];
  /** ISO date recorded on approved pins and shown entries; default now. */
  now?: string;
  /** How long to wait for the pin file's lock (default 8 s). */
  lockWaitMs?: number;
}

export async function managePins(options: ManagePinsOptions): Promise<PinListing> {
  const document = options.document ?? (typeof options.file === 'string' && options.file !== '' ? pinFileDocument(options.file) : undefined);
  if (document === undefined) throw new McpctxError('INVALID_ARGUMENT', 'managePins needs the pin file (file) or a pin document (document).');
  return document.withLock((locked) => manageLocked(options, document, locked), options.lockWaitMs);
}

async function manageLocked(options: ManagePinsOptions, document: PinDocument, locked: LockedPins): Promise<PinListing> {
  const now = options.now ?? new Date().toISOString();
  const read = await locked.read();
  if (read.status === 'unreadable') {
    throw new McpctxError('IO', `${capitalized(document.label)} cannot be used: ${read.reason}. The gateway holds everything back while it is so; repair it, or move it away to pin again from scratch.`, {
      file: document.target,
    });
  }
  const original = read.pins;
  const approval = resolvePending(original, options.approve ?? []);
  const rejection = resolvePending(original, options.reject ?? []);
  const approving = options.approveAll === true ? allPending(original) : approval.targets;
  const problems = [...approval.problems, ...rejection.problems];
  if (problems.length > 0) throw new McpctxError('USAGE', `${problems.join('; ')}. Nothing was changed.`, { problems });
  const both = approving.filter((target) => rejection.targets.some((other) => sameEntry(other, target)));
  if (both.length > 0) throw new McpctxError('USAGE', `${both.map((target) => `${target.upstream}/${displayKey(target.pinKind, target.key)}`).join(', ')} cannot be approved and rejected at once. Nothing was changed.`);
  const refused = [...approving.flatMap((target) => refusal(original, target)), ...rejection.targets.flatMap((target) => (target.sha256 === undefined ? [] : refusal(original, target)))];
  if (refused.length > 0) return { ...listing(document.target, read.status === 'read', original), approved: [], rejected: [], refused };
  const approved = approving.map((target) => change(original, target));
  const rejected = rejection.targets.map((target) => change(original, target));
  // What is printed below is what the user sees: the pending entries left are recorded as shown.
  const pins = markShown(rejectPending(approvePending(original, approving, now), rejection.targets), now);
  const changed = JSON.stringify(pins) !== JSON.stringify(original);
  if (changed) await locked.write(pins);
  return { ...listing(document.target, read.status === 'read' || changed, pins), approved, rejected, refused: [] };
}

function sameEntry(left: PinTarget, right: PinTarget): boolean {
  return left.upstream === right.upstream && left.pinKind === right.pinKind && left.key === right.key;
}

/** Why approving (or rejecting, with a hash) this target now would not act on what the user saw; empty when it would. */
function refusal(pins: PinFile, target: PinTarget): PinRefusal[] {
  const pending = pendingOf(pins, target);
  if (pending === undefined) return [];
  const name = displayKey(target.pinKind, target.key);
  const base = { upstream: target.upstream, pinKind: target.pinKind, name, sha256: pending.sha256 };
  if (target.sha256 !== undefined) {
    if (pending.sha256.startsWith(target.sha256)) return [];
    return [{ ...base, expected: target.sha256, reason: `the pending definition is ${short(pending.sha256)}, not ${target.sha256}` }];
  }
  if (pending.shownSha256 === pending.sha256) return [];
  if (pending.shownSha256 === undefined) return [{ ...base, expected: null, reason: `it was never listed: review it below, then approve it by its hash` }];
  return [{ ...base, expected: pending.shownSha256, reason: `it changed since it was last listed (${short(pending.shownSha256)} then, ${short(pending.sha256)} now): review it below, then approve it by its hash` }];
}

function change(pins: PinFile, target: PinTarget): PinChange {
  const pending = pendingOf(pins, target);
  return { upstream: target.upstream, pinKind: target.pinKind, name: displayKey(target.pinKind, target.key), sha256: pending?.sha256 ?? '', tokens: pending?.tokens ?? 0 };
}

function short(sha256: string): string {
  return sha256.slice(0, SHA_PREFIX_CHARS);
}

function listing(file: string, exists: boolean, pins: PinFile): Omit<PinListing, 'approved' | 'rejected' | 'refused'> {
  return {
    file,
    exists,
    upstreams: Object.entries(pins.upstreams).map(([name, entry]) => {
      const sections = PIN_KINDS.flatMap((pinKind) => {
        const section = sectionOf(entry, pinKind);
        return section === undefined ? [] : [{ pinKind, section }];
      });
      return {
        name,
        pinned: sections.flatMap(({ pinKind, section }) =>
          Object.entries(section.pinned).map(([key, pin]) => ({ tool: displayKey(pinKind, key), pinKind, sha256: pin.sha256, tokens: pin.tokens, pinnedAt: pin.pinnedAt })),
        ),
        pending: sections.flatMap(({ pinKind, section }) =>
          Object.entries(section.pending).map(([key, pending]) => ({
            tool: displayKey(pinKind, key),
            pinKind,
            kind: pending.kind,
            sha256: pending.sha256,
            tokensBefore: ownValue(section.pinned, key)?.tokens ?? null,
            tokensAfter: pending.tokens,
            firstSeenAt: pending.firstSeenAt,
            changes: fieldChanges(ownValue(section.pinned, key)?.definition, pending.definition, `(${pinKind})`),
            findings: typeof pending.definition === 'string' ? scanText(pending.definition, pinKind) : scanTool(pending.definition),
          })),
        ),
        rejected: sections.flatMap(({ pinKind, section }) => Object.keys(section.rejected).map((key) => displayKey(pinKind, key))),
      };
    }),
  };
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
