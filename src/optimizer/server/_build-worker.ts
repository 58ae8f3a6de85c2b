// The worker thread behind build_context: its own copy of the stored records (sent whole at start,
// then each ingested batch) and its own optimizer, so a long build never holds up the main thread,
// where the other tools answer. Messages are handled in order: a build sees every batch sent before it.
// The records' task-independent preparation (`ContextOptimizer.prepare`) is kept between builds and
// made again on the first build after an ingest (a batch can change earlier records' derived ids,
// merges and order, so it is not appended), reusing the facts and token counts of unchanged text.
import { parentPort, workerData } from 'node:worker_threads';
import { ContextOptimizer, type PreparedRecords } from '../_optimizer.js';
import { RECORD_ARRAYS, type ContextRequest, type SessionRecords } from '../_types.js';
import { parseBudget, parseSession, parseTask } from '../_validate.js';
import type { BuildReply, BuildRequest, WorkerStart } from './_builder.js';

const start = workerData as WorkerStart;
const optimizer = new ContextOptimizer(start.optimizer);
const records: Record<string, unknown[]> = {};
let prepared: PreparedRecords | undefined;
/** The preparation before the last ingest: what it read from unchanged text is reused. */
let before: PreparedRecords | undefined;
append(start.records);

function append(batch: SessionRecords): void {
  before = prepared ?? before;
  prepared = undefined;
  for (const { array } of RECORD_ARRAYS) {
    const list = (batch as Record<string, unknown[] | undefined>)[array];
    if (list === undefined || list.length === 0) continue;
    const held = records[array];
    if (held === undefined) records[array] = [...list];
    else for (const record of list) held.push(record);
  }
}

parentPort?.on('message', (request: BuildRequest) => {
  if (request.type === 'ingest') {
    append(request.records);
    return;
  }
  let reply: BuildReply;
  try {
    // The task's arguments are refused before any work, as buildContext refuses them.
    const build: ContextRequest = { task: parseTask(request.task) };
    if (request.tokenBudget !== undefined) build.tokenBudget = parseBudget(request.tokenBudget);
    if (request.session !== undefined) build.session = parseSession(request.session);
    if (prepared === undefined) {
      prepared = optimizer.prepare(records as SessionRecords, before);
      before = undefined;
    }
    reply = { id: request.id, result: optimizer.buildContextFrom(prepared, build) };
  } catch (error) {
    const failure = error as Error & { code?: unknown; data?: unknown };
    reply = { id: request.id, error: { name: failure.name, message: failure.message, code: typeof failure.code === 'string' ? failure.code : undefined, data: failure.data, stack: failure.stack } };
  }
  parentPort?.postMessage(reply);
});

