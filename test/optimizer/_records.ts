// Builds NormalizedRecord objects for tests: give the kind and text (and whatever the test is
// about), the rest is filled the way normalization would.
import { sha256Hex } from '../../src/tokens/index.js';
import { RECORD_ARRAYS, type NormalizedRecord, type RecordKind } from '../../src/optimizer/_types.js';

let nextOrder = 0;

/**
 * Defaults: `order` counts up per call, `id` is `<kind>-<order>`, `origin` is the kind's array at
 * index `order`, priority 0.5, `label` from the path, command, tool, test name, role or decision status,
 * `time` from `timestamp`, `contentHash` = sha256 of kind, label and text, history empty, and
 * `runKey` (`command:<command>`, `test:<testName>`) unless the partial sets `runKey` itself.
 */
export function makeRecord(partial: Partial<NormalizedRecord> & { kind: RecordKind; text: string }): NormalizedRecord {
  const order = partial.order ?? nextOrder++;
  const array = RECORD_ARRAYS.find((entry) => entry.kind === partial.kind)!.array;
  const label =
    partial.label ??
    partial.path ??
    partial.command ??
    partial.tool ??
    partial.testName ??
    partial.role ??
    (partial.decisionStatus === undefined ? '' : `decision (${partial.decisionStatus})`);
  const derivedRunKey =
    partial.kind === 'toolOutput' && partial.command !== undefined
      ? `command:${partial.command}`
      : partial.kind === 'testResult' && partial.testName !== undefined
        ? `test:${partial.testName}`
        : undefined;
  const runKey = 'runKey' in partial ? partial.runKey : derivedRunKey;
  const time = partial.time ?? (partial.timestamp === undefined ? undefined : Date.parse(partial.timestamp));
  return {
    id: `${partial.kind}-${order}`,
    origin: { array, index: order },
    priority: 0.5,
    collapsedLines: 0,
    contentHash: sha256Hex(`${partial.kind}\u0000${label}\u0000${partial.text}`),
    history: [],
    ...partial,
    order,
    label,
    ...(time === undefined ? {} : { time }),
    ...(runKey === undefined ? {} : { runKey }),
  };
}
