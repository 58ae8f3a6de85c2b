import { readFile } from 'node:fs/promises';
import { McpctxError } from '../errors/index.js';
import { catalogCost } from './_catalog-cost.js';
import { METHODOLOGY } from './_measure.js';

export interface VerifyDifference {
  field: string;
  recorded: unknown;
  recomputed: unknown;
}

export interface VerifyReport {
  file?: string;
  name?: string;
  status?: string;
  /** True when every recorded figure re-derives from `rawToolsCapture`. */
  ok: boolean;
  differences: VerifyDifference[];
  /** What was recomputed and compared. */
  checked: string[];
  note: string;
}

/**
 * Recomputes canonical bytes, sha256, token totals, per-tool figures and the session-start load
 * from the capture stored in a measurement, and lists every recorded figure that differs.
 */
export function verifyMeasurement(value: unknown): VerifyReport {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return failed('the file does not hold a measurement object');
  }
  const recorded = value as Record<string, unknown>;
  const identity = { name: asString(recorded.name), status: asString(recorded.status) };
  if (recorded.methodology !== METHODOLOGY) {
    return { ...identity, ...failed(`methodology is ${JSON.stringify(recorded.methodology)}; this verifier knows ${METHODOLOGY}`) };
  }
  const capture = recorded.rawToolsCapture;
  const instructions = recorded.serverInstructions;
  if (capture === null || capture === undefined) {
    const numbers = ['totalTokens', 'toolCount', 'canonicalSha256', 'canonicalBytes'];
    const claimed = numbers.filter((field) => recorded[field] !== null && recorded[field] !== undefined);
    if (claimed.length === 0) {
      return { ...identity, ok: true, differences: [], checked: [], note: `no capture to re-derive (status ${identity.status}); no figure is claimed` };
    }
    return {
      ...identity,
      ok: false,
      differences: claimed.map((field) => ({ field, recorded: recorded[field], recomputed: null })),
      checked: claimed,
      note: 'figures are recorded but rawToolsCapture is missing',
    };
  }
  if (!Array.isArray(capture)) return { ...identity, ...failed('rawToolsCapture is not an array') };
  if (instructions !== null && instructions !== undefined && typeof instructions !== 'string') {
    return { ...identity, ...failed('serverInstructions is neither text nor null') };
  }
  const cost = catalogCost(capture, typeof instructions === 'string' ? instructions : null);
  const expected: Record<string, unknown> = {
    totalTokens: cost.totalTokens,
    toolCount: cost.toolCount,
    canonicalSha256: cost.canonicalSha256,
    canonicalBytes: cost.canonicalBytes,
    perTool: cost.perTool,
    sessionStart: cost.sessionStart,
  };
  const differences: VerifyDifference[] = [];
  for (const [field, recomputed] of Object.entries(expected)) {
    if (JSON.stringify(recorded[field]) !== JSON.stringify(recomputed)) {
      differences.push({ field, recorded: recorded[field], recomputed });
    }
  }
  return {
    ...identity,
    ok: differences.length === 0,
    differences,
    checked: Object.keys(expected),
    note:
      differences.length === 0
        ? `re-derived ${cost.totalTokens} tokens, ${cost.canonicalBytes} bytes, sha256 ${cost.canonicalSha256} from rawToolsCapture`
        : `${differences.length} recorded figure(s) do not re-derive from rawToolsCapture`,
  };
}

/** Reads and verifies a measurement file. A missing file is an error; an unparsable one fails verification. */
export async function verifyFile(file: string): Promise<VerifyReport> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new McpctxError('IO', `cannot read ${file}: ${(error as Error).message}`, { file });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { file, ...failed(`not JSON: ${(error as Error).message}`) };
  }
  return { file, ...verifyMeasurement(value) };
}

function failed(note: string): VerifyReport {
  return { ok: false, differences: [], checked: [], note };
}

function asString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
