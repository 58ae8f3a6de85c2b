import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { McpctxError } from '../errors/index.js';
import { MAX_JSON_DEPTH, isPlainObject, nestsDeeperThan } from '../json/index.js';
import { catalogCost, type CatalogCost } from './_catalog-cost.js';
import { projectionFigures } from './_claude-divergence.js';
import { MEASUREMENT_FILE } from './_files.js';
import { METHODOLOGY } from './_measure.js';
import { plural } from '../text/index.js';
import { RECORD_STATUSES, shortJson } from './_status.js';

export interface VerifyDifference {
  /** The figure: `totalTokens`, `sessionStart.total`, `perTool.tokens`, `perTool.length`, ... */
  field: string;
  /** For a per-tool figure: the tool's position in the catalog and its name as recomputed. */
  tool?: { index: number; name: string };
  recorded: unknown;
  recomputed: unknown;
}

export interface VerifyReport {
  file?: string;
  name?: string;
  status?: string;
  /** True when every recorded figure re-derives from `rawToolsCapture`. */
  ok: boolean;
  /**
   * False when the file's figures cannot be re-derived by design: its capture was redacted before
   * it was written (`captureRedaction`). Absent otherwise.
   */
  rederivable?: false;
  differences: VerifyDifference[];
  /** What was recomputed and compared. */
  checked: string[];
  note: string;
}

const FIGURES = ['totalTokens', 'toolCount', 'canonicalSha256', 'canonicalBytes', 'perTool', 'sessionStart'] as const;
const HEADLINE = ['totalTokens', 'toolCount', 'canonicalSha256', 'canonicalBytes'] as const;
const TOOL_FIELDS = ['name', 'tokens', 'descriptionTokens', 'inputSchemaTokens', 'outputSchemaTokens'] as const;
const SESSION_FIELDS = ['namesTokens', 'instructionsTokens', 'total'] as const;

/**
 * Recomputes canonical bytes, sha256, token totals, per-tool figures and the session-start load
 * from the capture stored in a measurement, and lists every recorded figure that differs. A
 * measured or dynamic record must carry its capture and figures; a failure record must claim none.
 * Never throws for what the file holds.
 */
export function verifyMeasurement(value: unknown): VerifyReport {
  if (!isPlainObject(value)) return failed('the file does not hold a measurement object');
  // The file wraps the capture in one object: a capture measure accepted is MAX_JSON_DEPTH deep at most.
  if (nestsDeeperThan(value, MAX_JSON_DEPTH + 1)) return failed(`the file nests deeper than ${MAX_JSON_DEPTH} levels (MAX_JSON_DEPTH); refused before re-deriving`);
  const recorded = value;
  const identity = { name: asString(recorded.name), status: asString(recorded.status) };
  if (recorded.methodology !== METHODOLOGY) {
    return { ...identity, ...failed(`methodology is ${shortJson(recorded.methodology)}; this verifier knows ${METHODOLOGY}`) };
  }
  const status = recorded.status;
  if (typeof status !== 'string' || !(RECORD_STATUSES as readonly string[]).includes(status)) {
    return { ...identity, ...failed(`status is ${shortJson(status)}; expected one of ${RECORD_STATUSES.join(', ')}`) };
  }
  const capture = recorded.rawToolsCapture;
  const instructions = recorded.serverInstructions;
  const claimsFigures = status === 'measured' || status === 'dynamic';
  if (capture === null || capture === undefined) {
    const claimed = HEADLINE.filter((field) => recorded[field] !== null && recorded[field] !== undefined);
    if (claimsFigures) {
      return {
        ...identity,
        ok: false,
        differences: [],
        checked: [],
        note: `status ${status} needs rawToolsCapture and the figures it gives; ${claimed.length === 0 ? 'the file has neither' : 'rawToolsCapture is missing'}`,
      };
    }
    if (claimed.length === 0) {
      return { ...identity, ok: true, differences: [], checked: [], note: `no capture to re-derive (status ${status}); no figure is claimed` };
    }
    return {
      ...identity,
      ok: false,
      differences: claimed.map((field) => ({ field, recorded: recorded[field], recomputed: null })),
      checked: [...claimed],
      note: `figures are recorded but rawToolsCapture is missing (status ${status})`,
    };
  }
  if (!Array.isArray(capture)) return { ...identity, ...failed('rawToolsCapture is not an array') };
  if (!claimsFigures) return { ...identity, ...failed(`status ${status} is a failure, yet the file carries a capture`) };
  if (instructions !== null && instructions !== undefined && typeof instructions !== 'string') {
    return { ...identity, ...failed('serverInstructions is neither text nor null') };
  }
  const redaction = recorded.captureRedaction;
  if (redaction !== null && redaction !== undefined) {
    const strings = isPlainObject(redaction) && typeof redaction.strings === 'number' ? plural(redaction.strings, 'string') : 'strings';
    return {
      ...identity,
      ok: false,
      rederivable: false,
      differences: [],
      checked: [],
      note:
        `not re-derivable: ${strings} of the capture held a secret and were redacted before the file was written ` +
        '(captureRedaction); its figures are the server\'s real ones, counted before redaction',
    };
  }
  const cost = catalogCost(capture, typeof instructions === 'string' ? instructions : null);
  const differences = compareFigures(recorded, cost);
  const checked: string[] = [...FIGURES];
  // The claude block is checked only when present: what re-derives from the capture must.
  if (recorded.claude !== undefined) {
    differences.push(...compareClaude(recorded.claude, capture, cost));
    checked.push('claude');
  }
  const claudeNote = recorded.claude === undefined ? '' : '; claude.claudeTokens comes from count_tokens and is not re-derivable offline';
  return {
    ...identity,
    ok: differences.length === 0,
    differences,
    checked,
    note:
      (differences.length === 0
        ? `re-derived ${cost.totalTokens} tokens, ${cost.canonicalBytes} bytes, sha256 ${cost.canonicalSha256} from rawToolsCapture`
        : `${plural(differences.length, 'recorded figure')} ${differences.length === 1 ? 'does' : 'do'} not re-derive from rawToolsCapture`) + claudeNote,
  };
}

/** The Claude divergence block against the capture: its projection figures, its capture hash, and its own arithmetic. */
function compareClaude(claude: unknown, capture: readonly unknown[], cost: CatalogCost): VerifyDifference[] {
  if (!isPlainObject(claude)) return [{ field: 'claude', recorded: claude, recomputed: 'an object (tools-delta/v1)' }];
  const differences: VerifyDifference[] = [];
  let expected: ReturnType<typeof projectionFigures> | undefined;
  try {
    expected = projectionFigures(capture, cost.totalTokens);
  } catch {
    return [{ field: 'claude', recorded: claude.projectedTokens, recomputed: 'a capture whose tools all have names' }];
  }
  const compare = (field: string, had: unknown, want: unknown): void => {
    if (JSON.stringify(had) !== JSON.stringify(want)) differences.push({ field: `claude.${field}`, recorded: had, recomputed: want });
  };
  compare('projectedTokens', claude.projectedTokens, expected.projectedTokens);
  compare('fieldSelectionShare', claude.fieldSelectionShare, expected.fieldSelectionShare);
  compare('canonicalSha256', claude.canonicalSha256, cost.canonicalSha256);
  const { withTools, withoutTools } = claude;
  compare('claudeTokens', claude.claudeTokens, typeof withTools === 'number' && typeof withoutTools === 'number' ? withTools - withoutTools : 'withTools - withoutTools');
  return differences;
}

/** Every recorded figure against its recomputed value; per-tool and session-start figures one by one. */
function compareFigures(recorded: Record<string, unknown>, cost: CatalogCost): VerifyDifference[] {
  const differences: VerifyDifference[] = [];
  const compare = (field: string, had: unknown, expected: unknown, tool?: VerifyDifference['tool']): void => {
    if (JSON.stringify(had) !== JSON.stringify(expected)) differences.push({ field, ...(tool ? { tool } : {}), recorded: had, recomputed: expected });
  };
  for (const field of HEADLINE) compare(field, recorded[field], cost[field]);

  const perTool = recorded.perTool;
  if (!Array.isArray(perTool)) {
    compare('perTool', perTool, cost.perTool);
  } else {
    if (perTool.length !== cost.perTool.length) compare('perTool.length', perTool.length, cost.perTool.length);
    cost.perTool.forEach((expected, index) => {
      const had: unknown = perTool[index];
      const tool = { index, name: expected.name };
      if (!isPlainObject(had)) {
        if (index < perTool.length) compare('perTool', had, expected, tool);
        return;
      }
      for (const field of TOOL_FIELDS) compare(`perTool.${field}`, had[field], expected[field], tool);
    });
  }

  const session = recorded.sessionStart;
  if (!isPlainObject(session)) {
    compare('sessionStart', session, cost.sessionStart);
  } else {
    for (const field of SESSION_FIELDS) compare(`sessionStart.${field}`, session[field], cost.sessionStart[field]);
  }
  return differences;
}

/**
 * Reads and verifies a measurement file. A missing or unreadable file is an error (`IO`); an
 * unparsable one fails verification.
 */
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

/**
 * Verifies every `measurement.json` under `dir` (any depth, symbolic links not followed), in
 * path order. A file that cannot be read is a failed report, not an error, so one bad file does
 * not hide the others. Refuses (`USAGE`) a folder that holds none.
 */
export async function verifyDirectory(dir: string): Promise<VerifyReport[]> {
  const files = await measurementFiles(dir);
  if (files.length === 0) throw new McpctxError('USAGE', `no ${MEASUREMENT_FILE} under ${dir}`, { dir });
  const reports: VerifyReport[] = [];
  for (const file of files) {
    reports.push(await verifyFile(file).catch((error: unknown) => ({ file, ...failed((error as Error).message) })));
  }
  return reports;
}

async function measurementFiles(dir: string): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(dir, { recursive: true, withFileTypes: true });
  } catch (error) {
    throw new McpctxError('IO', `cannot read ${dir}: ${(error as Error).message}`, { dir });
  }
  return entries
    .filter((entry) => entry.isFile() && entry.name === MEASUREMENT_FILE)
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

function failed(note: string): VerifyReport {
  return { ok: false, differences: [], checked: [], note };
}

function asString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
