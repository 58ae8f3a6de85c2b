/**
 * The gateway's side of the pins: every time a session builds its catalog (at start, and after an
 * upstream's list_changed), and every time it answers `initialize` or lists prompts, resources or
 * templates, what each upstream offers is checked against the pins (a file, or the shared state's
 * document: `_pin-document.ts`). Each check holds the document's lock and reads it inside, so an
 * approval made with `mcpctx gateway pins` while the gateway runs is seen and never overwritten, and
 * two gateways on one document lose nothing. Checks in one process are also queued. A document that
 * cannot be read, locked or written holds everything checked back (fail closed), and an unreadable
 * one is never rewritten.
 */
import { LOCK_WAIT_MS } from './_pin-lock.js';
import { pinFileDocument, type LockedPins, type PinDocument } from './_pin-document.js';
import type { CatalogFilter } from './_catalog-filter.js';
import { SHA_PREFIX_CHARS, checkItems, displayKey, toolItems, toolName, type HeldTool, type PinItem, type PinKind, type PinMode } from './_pins.js';

/** What a check makes of the items of one kind: the trusted ones as given, the held ones' reasons by key. */
export interface ItemFilter {
  trusted: PinItem[];
  held: Map<string, string>;
}

export class PinStore {
  readonly document: PinDocument;
  readonly mode: PinMode;
  private readonly log: (line: string) => void;
  /** The words that run this mcpctx, in the commands a held item's refusal hands the user. */
  private readonly invocation: string;
  private readonly lockWaitMs: number;
  private queue: Promise<unknown> = Promise.resolve();

  /** `document`: the pins in the shared state; otherwise the pin file `file`. */
  constructor(settings: { file: string; mode: PinMode; lockWaitMs?: number; document?: PinDocument }, log: (line: string) => void, invocation = 'mcpctx') {
    this.document = settings.document ?? pinFileDocument(settings.file);
    this.mode = settings.mode;
    this.lockWaitMs = settings.lockWaitMs ?? LOCK_WAIT_MS;
    this.log = log;
    this.invocation = invocation;
  }

  /** The command that lists the pin file (and approves in it). */
  get reviewCommand(): string {
    return `${this.invocation} gateway pins ${this.document.target}`;
  }

  /** Checks one upstream's tools; records first contacts (tofu) and pending changes in the file. */
  async filter(upstream: string, tools: readonly unknown[]): Promise<CatalogFilter> {
    const checked = await this.filterItems(upstream, 'tool', toolItems(tools));
    const trustedNames = new Set(checked.trusted.map((item) => item.key));
    return { trusted: tools.filter((tool) => trustedNames.has(toolName(tool) ?? '')), held: checked.held, findings: [] };
  }

  /** Checks what one upstream offers of one kind (tools, prompts, resources, templates, its instructions). */
  filterItems(upstream: string, pinKind: PinKind, items: readonly PinItem[]): Promise<ItemFilter> {
    const next = this.queue.then(() => this.check(upstream, pinKind, items));
    this.queue = next.catch(() => {});
    return next;
  }

  private async check(upstream: string, pinKind: PinKind, items: readonly PinItem[]): Promise<ItemFilter> {
    const what = pinKind === 'instructions' ? `the instructions of ${upstream}` : `every ${pinKind} of ${upstream}`;
    const holdAll = (reason: string): ItemFilter => ({ trusted: [], held: new Map(items.map((item) => [item.key, reason])) });
    try {
      return await this.document.withLock((locked) => this.checkLocked(locked, upstream, pinKind, items, holdAll), this.lockWaitMs);
    } catch (error) {
      const message = (error as Error).message;
      this.log(`pins: ${message} So ${what} is held back until ${this.document.label} can be used.`);
      return holdAll(`the gateway could not use ${this.document.label} (${message}), so it trusts nothing of ${upstream} for now. The call was not sent. Try again shortly.`);
    }
  }

  private async checkLocked(locked: LockedPins, upstream: string, pinKind: PinKind, items: readonly PinItem[], holdAll: (reason: string) => ItemFilter): Promise<ItemFilter> {
    const read = await locked.read();
    if (read.status === 'unreadable') {
      const label = this.document.label;
      this.log(`pins: ${label} cannot be read (${read.reason}): every ${pinKind} of ${upstream} is held back`);
      return holdAll(`${label} cannot be read (${read.reason}), so nothing of ${upstream} is trusted. The call was not sent. Repair it, or move it away to pin again.`);
    }
    const result = checkItems(read.pins, upstream, pinKind, items, this.mode, new Date().toISOString());
    // Only a file that changes is written: an unchanged check leaves it (and its mtime) alone.
    if (JSON.stringify(result.next) !== JSON.stringify(read.pins)) await locked.write(result.next);
    if (result.held.length > 0) {
      const names = result.held.map((held) => displayKey(held.pinKind, held.tool)).join(', ');
      this.log(`pins: ${upstream}: ${result.held.length} held back (${names}); review with: ${this.reviewCommand}`);
    }
    const trustedKeys = new Set(result.trusted);
    return {
      trusted: items.filter((item) => trustedKeys.has(item.key)),
      held: new Map(result.held.map((held) => [held.tool, heldText(held, this.reviewCommand)])),
    };
  }
}

/** Why a held item was refused, with what changed and how to review and approve it (`pins`: the command that lists the pin file). */
function heldText(held: HeldTool, pins: string): string {
  const approve = `review it with: ${pins}, and approve it there (--approve ${held.upstream}/${displayKey(held.pinKind, held.tool)}@${held.sha256.slice(0, SHA_PREFIX_CHARS)})`;
  // Only a tool is called; a held prompt, resource or instructions text is simply not passed on.
  const notSent = held.pinKind === 'tool' ? ' The call was not sent.' : '';
  if (held.rejected) return `it is held back by the gateway: the user rejected this definition of it.${notSent}`;
  if (held.kind === 'new') {
    return `it is held back by the gateway: ${held.upstream} did not offer it when its ${held.pinKind === 'instructions' ? 'instructions were' : `${held.pinKind}s were`} pinned (${held.tokensAfter} tokens).${notSent} To trust it, the user should ${approve}`;
  }
  const fields = held.changes.map((change) => change.path).join(', ');
  return `it is held back by the gateway: its definition changed since it was pinned (${fields}; ${held.tokensBefore ?? 0} -> ${held.tokensAfter} tokens).${notSent} To trust it, the user should ${approve}`;
}
