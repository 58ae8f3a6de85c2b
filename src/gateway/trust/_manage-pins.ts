/**
 * `mcpctx gateway pins FILE`: what is pinned and what waits for approval, with what changed; and
 * approving or rejecting pending definitions, written back atomically. A file that cannot be read
 * is never rewritten: IO, so the user repairs or removes it knowingly.
 */
import { McpctxError } from '../../errors/index.js';
import { readPinFile, writePinFile } from './_pin-file.js';
import { scanTool, type Finding } from './scan/index.js';
import { allPending, approvePending, fieldChanges, rejectPending, resolvePending, type FieldChange, type PinFile, type PinTarget } from './_pins.js';

export interface PinListing {
  file: string;
  /** False when the file does not exist yet (no upstream contacted). */
  exists: boolean;
  upstreams: Array<{
    name: string;
    pinned: Array<{ tool: string; sha256: string; tokens: number; pinnedAt: string }>;
    pending: Array<{
      tool: string;
      kind: 'new' | 'changed';
      tokensBefore: number | null;
      tokensAfter: number;
      firstSeenAt: string;
      changes: FieldChange[];
      /** What the poisoning scan finds in the pending definition: read before approving. */
      findings: Finding[];
    }>;
    rejected: string[];
  }>;
  /** What this run changed: the targets approved and rejected (empty for a listing). */
  approved: PinTarget[];
  rejected: PinTarget[];
}

export interface ManagePinsOptions {
  file: string;
  approve?: readonly string[];
  approveAll?: boolean;
  reject?: readonly string[];
  /** ISO date recorded on approved pins; default now. */
  now?: string;
}

export async function managePins(options: ManagePinsOptions): Promise<PinListing> {
  const read = await readPinFile(options.file);
  if (read.status === 'unreadable') {
    throw new McpctxError('IO', `The pin file ${options.file} cannot be used: ${read.reason}. The gateway holds every tool back while it is so; repair it, or move it away to pin again from scratch.`, {
      file: options.file,
    });
  }
  let pins = read.pins;
  const approval = resolvePending(pins, options.approve ?? []);
  const rejection = resolvePending(pins, options.reject ?? []);
  const approved = options.approveAll === true ? allPending(pins) : approval.targets;
  const problems = [...approval.problems, ...rejection.problems];
  if (problems.length > 0) throw new McpctxError('USAGE', `${problems.join('; ')}. Nothing was changed.`, { problems });
  const both = approved.filter((target) => rejection.targets.some((other) => other.upstream === target.upstream && other.tool === target.tool));
  if (both.length > 0) throw new McpctxError('USAGE', `${both.map((target) => `${target.upstream}/${target.tool}`).join(', ')} cannot be approved and rejected at once. Nothing was changed.`);
  if (approved.length > 0 || rejection.targets.length > 0) {
    pins = rejectPending(approvePending(pins, approved, options.now ?? new Date().toISOString()), rejection.targets);
    await writePinFile(options.file, pins);
  }
  return { ...listing(options.file, read.status === 'read' || approved.length + rejection.targets.length > 0, pins), approved, rejected: rejection.targets };
}

function listing(file: string, exists: boolean, pins: PinFile): Omit<PinListing, 'approved' | 'rejected'> {
  return {
    file,
    exists,
    upstreams: Object.entries(pins.upstreams).map(([name, entry]) => ({
      name,
      pinned: Object.entries(entry.tools).map(([tool, pin]) => ({ tool, sha256: pin.sha256, tokens: pin.tokens, pinnedAt: pin.pinnedAt })),
      pending: Object.entries(entry.pending).map(([tool, pending]) => ({
        tool,
        kind: pending.kind,
        tokensBefore: entry.tools[tool]?.tokens ?? null,
        tokensAfter: pending.tokens,
        firstSeenAt: pending.firstSeenAt,
        changes: fieldChanges(entry.tools[tool]?.definition, pending.definition),
        findings: scanTool(pending.definition),
      })),
      rejected: Object.keys(entry.rejected),
    })),
  };
}
