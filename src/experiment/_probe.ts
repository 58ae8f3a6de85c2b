/**
 * The warm-cache probe: one fresh server, the same direct call twice. It shows what the server's
 * application cache does (the seed's "a cache hit alone does not shorten that result"), and is
 * reported apart: no model is involved and nothing of it enters a token total.
 */
import { McpctxError, isMcpctxError } from '../errors/index.js';
import { isPlainObject } from '../json/index.js';
import { launchFor } from './config/index.js';
import { probeCallFigures } from './receipt/index.js';
import { ConditionServer } from './_server.js';
import type { ExperimentConfig, ProbeCall, ProbeRecord, ProbeSpec } from './_types.js';

export const PROBE_NOTE = 'A separate fresh server; the same direct tool call twice, no model. Excluded from every token total.';

/** Runs the probe into `record` (filled in place). Returns the error that must stop the run (an input changed), if any. */
export async function runProbe(
  record: ProbeRecord,
  spec: ProbeSpec,
  config: ExperimentConfig,
  assertInputsUnchanged: () => void,
): Promise<McpctxError | undefined> {
  let server: ConditionServer | undefined;
  try {
    assertInputsUnchanged();
    server = await ConditionServer.open(launchFor(config, spec.condition), [spec.tool], config.toolTimeoutMs);
    record.server = server.record;
    const dropResultKeys = config.conditions[spec.condition].dropResultKeys;
    const { isError: firstFailed, ...first } = await probeCall(server, spec, dropResultKeys);
    record.first = first;
    assertInputsUnchanged();
    const { isError: repeatFailed, ...repeat } = await probeCall(server, spec, dropResultKeys);
    record.repeat = repeat;
    const problem = firstFailed || repeatFailed ? `${spec.tool} answered with an error` : cacheProblem(first, repeat, spec);
    if (problem === undefined) record.status = 'passed';
    else {
      record.status = 'failed';
      record.failure = { code: 'CACHE_PROBE_FAILED', message: problem };
    }
    return undefined;
  } catch (error) {
    const failure = isMcpctxError(error) ? error : new McpctxError('PROTOCOL', (error as Error).message, {}, { cause: error });
    record.status = 'failed';
    record.failure = { code: failure.code, message: failure.message };
    return isMcpctxError(error, 'SOURCE_CHANGED') ? error : undefined;
  } finally {
    if (server !== undefined) await server.close();
  }
}

async function probeCall(server: ConditionServer, spec: ProbeSpec, dropResultKeys: readonly string[]): Promise<ProbeCall & { isError: boolean }> {
  const { result } = await server.call(spec.tool, spec.arguments);
  const rawContent = result.content ?? null;
  return {
    rawContent,
    ...probeCallFigures(rawContent, dropResultKeys),
    cache: spec.cacheKey === null ? null : cacheDisposition(rawContent, spec.cacheKey),
    isError: result.isError === true,
  };
}

/** The value of `key` in the first text block's JSON object, when it is a string. */
function cacheDisposition(rawContent: unknown, key: string): string | null {
  if (!Array.isArray(rawContent)) return null;
  const first: unknown = rawContent[0];
  if (!isPlainObject(first) || typeof first.text !== 'string') return null;
  try {
    const value: unknown = JSON.parse(first.text);
    return isPlainObject(value) && typeof value[key] === 'string' ? value[key] : null;
  } catch {
    return null;
  }
}

function cacheProblem(first: ProbeCall, repeat: ProbeCall, spec: ProbeSpec): string | undefined {
  if (spec.cacheKey === null) return undefined;
  if (first.cache !== 'miss' || repeat.cache !== 'hit') {
    return `expected "${spec.cacheKey}" to be miss then hit, got ${String(first.cache)} then ${String(repeat.cache)}`;
  }
  return undefined;
}
