/**
 * The gateway's side of the pins: every time a session builds its catalog (at start, and after an
 * upstream's list_changed) each upstream's tools are checked against the pin file, read again
 * each time so an approval made with `mcpctx gateway pins` while the gateway runs is seen and never
 * overwritten. Checks are serialized, so two sessions cannot lose each other's updates. A file that
 * cannot be read holds every tool back until it can, and is never rewritten.
 */
import { readPinFile, writePinFile } from './_pin-file.js';
import type { CatalogFilter } from './_catalog-filter.js';
import { checkCatalog, toolName, type HeldTool, type PinMode } from './_pins.js';

export class PinStore {
  readonly file: string;
  readonly mode: PinMode;
  private readonly log: (line: string) => void;
  /** The words that run this mcpctx, in the commands a held tool's refusal hands the user. */
  private readonly invocation: string;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(settings: { file: string; mode: PinMode }, log: (line: string) => void, invocation = 'mcpctx') {
    this.file = settings.file;
    this.mode = settings.mode;
    this.log = log;
    this.invocation = invocation;
  }

  /** Checks one upstream's tools; records first contacts (tofu) and pending changes in the file. */
  filter(upstream: string, tools: readonly unknown[]): Promise<CatalogFilter> {
    const next = this.queue.then(() => this.check(upstream, tools));
    this.queue = next.catch(() => {});
    return next;
  }

  private async check(upstream: string, tools: readonly unknown[]): Promise<CatalogFilter> {
    const read = await readPinFile(this.file);
    if (read.status === 'unreadable') {
      const reason = `the pin file ${this.file} cannot be read (${read.reason}), so no tool of ${upstream} is trusted. The call was not sent. Repair the file, or move it away to pin again.`;
      this.log(`pins: ${this.file} cannot be read (${read.reason}): every tool of ${upstream} is held back`);
      return { trusted: [], held: new Map(tools.flatMap((tool) => (toolName(tool) === undefined ? [] : [[toolName(tool) as string, reason]]))), findings: [] };
    }
    const result = checkCatalog(read.pins, upstream, tools, this.mode, new Date().toISOString());
    if (JSON.stringify(result.next) !== JSON.stringify(read.pins)) {
      try {
        await writePinFile(this.file, result.next);
      } catch (error) {
        this.log(`pins: ${(error as Error).message}`);
      }
    }
    if (result.held.length > 0) {
      this.log(`pins: ${upstream}: ${result.held.length} tool(s) held back (${result.held.map((held) => held.tool).join(', ')}); review with: ${this.invocation} gateway pins ${this.file}`);
    }
    const trustedNames = new Set(result.trusted);
    return {
      trusted: tools.filter((tool) => trustedNames.has(toolName(tool) ?? '')),
      held: new Map(result.held.map((held) => [held.tool, heldText(held, `${this.invocation} gateway pins ${this.file}`)])),
      findings: [],
    };
  }
}

/** Why a held tool was refused, with what changed and how to approve it (`pins`: the command that manages the pin file). */
function heldText(held: HeldTool, pins: string): string {
  const approve = `${pins} --approve ${held.upstream}/${held.tool}`;
  if (held.rejected) return `it is held back by the gateway: the user rejected this definition of it. The call was not sent.`;
  if (held.kind === 'new') {
    return `it is held back by the gateway: ${held.upstream} did not offer it when its tools were pinned (${held.tokensAfter} tokens). The call was not sent. To trust it, the user reviews it and runs: ${approve}`;
  }
  const fields = held.changes.map((change) => change.path).join(', ');
  return `it is held back by the gateway: its definition changed since it was pinned (${fields}; ${held.tokensBefore ?? 0} -> ${held.tokensAfter} tokens). The call was not sent. To trust it, the user reviews the change and runs: ${approve}`;
}
