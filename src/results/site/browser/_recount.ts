// The in-browser verify of a site's server page: every figure of a copied measurement.json
// recounted from its rawToolsCapture. The token figures come from measure's own
// `catalogTokens` and tokens' `countTokens` (the CLI's code, bundled with the browser's rank
// table, see tools/build.mjs); only the sha256 and the byte length are the page's own, through
// SubtleCrypto and TextEncoder. measure's index reaches Node modules, hence the private file.
import { METHODOLOGY, catalogTokens, type CatalogTokens } from '../../../measure/_catalog-tokens.js';
import { isPlainObject, ownValue, type JsonObject } from '../../../json/index.js';
import { TOKENIZER, countTokens } from '../../../tokens/index.js';

/**
 * - `match`: the recorded figure is the one recounted;
 * - `differs`: it is not (`recomputed` is what the capture gives);
 * - `unchecked`: the page could not recompute it (`reason` says why).
 */
export type FigureState = 'match' | 'differs' | 'unchecked';

export interface FigureCheck {
  /** `totalTokens`, `sessionStart.namesTokens`, `perTool.descriptionTokens`, ... as in measurement.json. */
  figure: string;
  /** For a per-tool figure: the tool's position in the capture and its name as recounted. */
  tool?: { index: number; name: string };
  /** As the file has it; `undefined` when the file has no such field. */
  recorded: unknown;
  recomputed: unknown;
  state: FigureState;
  reason?: string;
}

/**
 * - `verified`: every figure re-derives from the capture;
 * - `differs`: at least one does not (see `checks`);
 * - `not-rederivable`: the capture was redacted before the file was written, by design;
 * - `nothing-to-verify`: a failure record, which carries no capture and claims no figure;
 * - `refused`: the file is not a measurement this code can recount (`note` says why).
 */
export type RecountOutcome = 'verified' | 'differs' | 'not-rederivable' | 'nothing-to-verify' | 'refused';

export interface RecountReport {
  outcome: RecountOutcome;
  note: string;
  checks: FigureCheck[];
  /** The counter used here, and the one the record names (when the versions differ, counts may too). */
  tokenizer: { name: string; version: string; encoding: string };
  recordedTokenizer: unknown;
}

const HEADLINE = ['totalTokens', 'toolCount', 'canonicalSha256', 'canonicalBytes'] as const;
const SESSION_FIELDS = ['namesTokens', 'instructionsTokens', 'total'] as const;
const TOOL_FIELDS = ['name', 'tokens', 'descriptionTokens', 'inputSchemaTokens'] as const;

/** `crypto.subtle`, or undefined where the browser withholds it (a page served over plain http from another host). */
type Digest = (bytes: Uint8Array) => Promise<ArrayBuffer>;

/**
 * Recounts the measurement in `text` (the file's bytes as UTF-8 text). Never throws for what the
 * file holds: what cannot be recounted is a `refused` report saying why.
 */
export async function recountMeasurement(text: string): Promise<RecountReport> {
  const base = { checks: [] as FigureCheck[], tokenizer: { ...TOKENIZER }, recordedTokenizer: undefined as unknown };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ...base, outcome: 'refused', note: `measurement.json is not JSON: ${(error as Error).message}` };
  }
  if (!isPlainObject(value)) return { ...base, outcome: 'refused', note: 'measurement.json does not hold a measurement object' };
  const record = value;
  const withTokenizer = { ...base, recordedTokenizer: ownValue(record, 'tokenizer') };
  const methodology = ownValue(record, 'methodology');
  if (methodology !== METHODOLOGY) {
    return { ...withTokenizer, outcome: 'refused', note: `methodology is ${JSON.stringify(methodology) ?? 'absent'}; this page recounts ${METHODOLOGY}` };
  }
  const capture = ownValue(record, 'rawToolsCapture');
  if (capture === null || capture === undefined) {
    return { ...withTokenizer, outcome: 'nothing-to-verify', note: `this record holds no capture (status ${String(ownValue(record, 'status'))}): there is nothing to recount` };
  }
  if (!Array.isArray(capture)) return { ...withTokenizer, outcome: 'refused', note: 'rawToolsCapture is not an array' };
  const instructions = ownValue(record, 'serverInstructions') ?? null;
  if (instructions !== null && typeof instructions !== 'string') return { ...withTokenizer, outcome: 'refused', note: 'serverInstructions is neither text nor null' };
  const redaction = ownValue(record, 'captureRedaction');
  if (redaction !== null && redaction !== undefined) {
    const strings = isPlainObject(redaction) && typeof redaction.strings === 'number' ? `${redaction.strings} string(s)` : 'strings';
    return {
      ...withTokenizer,
      outcome: 'not-rederivable',
      note:
        `not re-derivable: ${strings} of the capture held a secret and were redacted before the file was written (captureRedaction). ` +
        "The published figures, hash included, are the server's real ones, counted before redaction; the capture in the file cannot give them back.",
    };
  }
  let recounted: CatalogTokens;
  try {
    recounted = catalogTokens(capture, instructions, countTokens);
  } catch (error) {
    return { ...withTokenizer, outcome: 'refused', note: `the capture cannot be recounted: ${(error as Error).message}` };
  }
  const checks = await compareFigures(record, recounted, subtleDigest());
  const differing = checks.filter((check) => check.state === 'differs').length;
  const unchecked = checks.filter((check) => check.state === 'unchecked').length;
  const outcome: RecountOutcome = differing > 0 ? 'differs' : 'verified';
  const note =
    differing > 0
      ? `${differing} of ${checks.length} figures do not re-derive from rawToolsCapture`
      : `all ${checks.length - unchecked} figures checked re-derive from rawToolsCapture${unchecked > 0 ? ` (${unchecked} could not be checked here)` : ''}`;
  return { ...withTokenizer, outcome, note, checks };
}

async function compareFigures(record: JsonObject, recounted: CatalogTokens, digest: Digest | undefined): Promise<FigureCheck[]> {
  const checks: FigureCheck[] = [];
  const compare = (figure: string, recorded: unknown, recomputed: unknown, tool?: FigureCheck['tool']): void => {
    const state: FigureState = JSON.stringify(recorded) === JSON.stringify(recomputed) ? 'match' : 'differs';
    checks.push({ figure, ...(tool ? { tool } : {}), recorded, recomputed, state });
  };
  const bytes = new TextEncoder().encode(recounted.canonical);
  const headline: Record<(typeof HEADLINE)[number], unknown> = {
    totalTokens: recounted.totalTokens,
    toolCount: recounted.toolCount,
    canonicalSha256: digest === undefined ? undefined : hex(await digest(bytes)),
    canonicalBytes: bytes.length,
  };
  for (const figure of HEADLINE) {
    if (figure === 'canonicalSha256' && digest === undefined) {
      const reason = 'this browser offers no SubtleCrypto here (it does on https and on localhost)';
      checks.push({ figure, recorded: ownValue(record, figure), recomputed: null, state: 'unchecked', reason });
      continue;
    }
    compare(figure, ownValue(record, figure), headline[figure]);
  }

  const session = ownValue(record, 'sessionStart');
  for (const field of SESSION_FIELDS) {
    compare(`sessionStart.${field}`, isPlainObject(session) ? ownValue(session, field) : undefined, recounted.sessionStart[field]);
  }

  const perTool = ownValue(record, 'perTool');
  const recordedTools: readonly unknown[] = Array.isArray(perTool) ? perTool : [];
  recounted.perTool.forEach((expected, index) => {
    const had: unknown = recordedTools[index];
    const fields = isPlainObject(had) ? had : undefined;
    const tool = { index, name: expected.name };
    for (const field of TOOL_FIELDS) compare(`perTool.${field}`, ownValue(fields, field), expected[field], tool);
    // Only a tool with an output schema has the figure, in the record as in the recount.
    const outputSchema = ownValue(fields, 'outputSchemaTokens');
    if (outputSchema !== undefined || expected.outputSchemaTokens !== undefined) compare('perTool.outputSchemaTokens', outputSchema, expected.outputSchemaTokens, tool);
  });
  // A recorded tool the capture does not have.
  for (let index = recounted.perTool.length; index < recordedTools.length; index += 1) {
    const extra: unknown = recordedTools[index];
    const name = isPlainObject(extra) && typeof extra.name === 'string' ? extra.name : `#${index}`;
    compare('perTool', extra, undefined, { index, name });
  }
  return checks;
}

function subtleDigest(): Digest | undefined {
  const subtle = globalThis.crypto?.subtle as { digest(algorithm: string, data: Uint8Array): Promise<ArrayBuffer> } | undefined;
  return subtle === undefined ? undefined : (bytes) => subtle.digest('SHA-256', bytes);
}

function hex(buffer: ArrayBuffer): string {
  return Array.from(new Uint8Array(buffer), (byte) => byte.toString(16).padStart(2, '0')).join('');
}
