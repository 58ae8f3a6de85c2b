/**
 * The data an experiment runs on (snapshot, field allowlist, tasks, and the scripted turns when
 * the provider is scripted): each file read once, its bytes hashed and parsed, and a guard that
 * stops the run when any of them changes afterwards.
 */
import { closeSync, constants, fstatSync, openSync, readFileSync, statSync, type BigIntStats } from 'node:fs';
import { configError } from '../../config/index.js';
import { McpctxError } from '../../errors/index.js';
import { compareIds } from '../../shape/index.js';
import { parseFlatRecords } from '../../shape/files/index.js';
import { sha256Hex } from '../../tokens/index.js';
import { parseTasks } from './_tasks.js';
import type { ExperimentConfig, ProbeSpec, SnapshotRecord, Task } from '../_types.js';

/** Id order of the records-server (the same function): digit-only ids as numbers, others by code points. */
export { compareIds };

/** Largest input file read, as the records-server's FrozenRecords allows. */
export const MAX_INPUT_BYTES = 64 * 1024 * 1024;

export type InputName = 'config' | 'snapshot' | 'fields' | 'tasks' | 'script';

export interface InputBytes {
  /** Absolute path. */
  file: string;
  /** sha256 (hex) of the bytes read. */
  sha256: string;
  /** How many bytes were read. */
  bytes: number;
}

export interface ExperimentInputs {
  /**
   * The config file, as `loadExperimentConfig` hashed it (`config.source`): set by the runner so the
   * guard watches it like the others, since it names the servers and the model.
   */
  config?: InputBytes;
  /** Records in the records-server's id order (`compareIds`), not file order. */
  snapshot: InputBytes & { records: SnapshotRecord[] };
  /** The allowlist as written (its order). */
  fields: InputBytes & { allowed: string[] };
  /** `problems[i]`: what is wrong with task i as written; `validateTasks` refuses a task that has any. */
  tasks: InputBytes & { tasks: Task[]; problems: string[][]; text: string };
  /** The scripted provider's turns file (hashed so the guard covers it; the provider parses it). */
  script?: InputBytes;
}

/**
 * Reads the config's inputs. The snapshot and allowlist follow the records-server's data rules
 * (`parseFlatRecords`, the function the server itself runs): a broken one is INVALID_RECORDS with
 * `data.file`, `data.which` and a message naming the record (index and id) and the rule. An
 * unreadable file is IO; a broken tasks file INVALID_CONFIG (see _tasks.ts for which problems
 * refuse the file and which only a task).
 */
export async function readInputs(config: ExperimentConfig): Promise<ExperimentInputs> {
  const snapshot = readInputFile(config.snapshot, 'snapshot');
  const fields = readInputFile(config.fields, 'fields');
  const tasks = readInputFile(config.tasks, 'tasks');
  const script = config.model.provider === 'scripted' && config.model.script !== undefined ? readInputFile(config.model.script, 'script') : undefined;

  let data: ReturnType<typeof parseFlatRecords>;
  try {
    data = parseFlatRecords({ snapshot: snapshot.bytes, path: config.snapshot, fields: fields.bytes, fieldsPath: config.fields });
  } catch (error) {
    if (!(error instanceof McpctxError)) throw error;
    const which: InputName = error.data.path === config.fields && config.fields !== config.snapshot ? 'fields' : 'snapshot';
    throw new McpctxError(error.code, error.message, { ...error.data, file: which === 'fields' ? config.fields : config.snapshot, which }, { cause: error });
  }
  const parsedTasks = parseTasks(tasks.bytes, config.tasks);
  const inputs: ExperimentInputs = {
    snapshot: { ...figures(config.snapshot, snapshot.bytes), records: [...data.records].sort((a, b) => compareIds(a.id, b.id)) },
    fields: { ...figures(config.fields, fields.bytes), allowed: data.fields },
    // The text as read (parseTasks refused anything but UTF-8), so a receipt can re-derive its tasks from the bytes.
    tasks: { ...figures(config.tasks, tasks.bytes), tasks: parsedTasks.tasks, problems: parsedTasks.problems, text: tasks.bytes.toString('utf8') },
  };
  if (script !== undefined && config.model.script !== undefined) inputs.script = figures(config.model.script, script.bytes);
  return inputs;
}

/**
 * The probe with its arguments: as configured, or, when the config gave none, the records-server's
 * count of one id, `{ field: "id", value: <first id in id order> }` ("" for an empty snapshot).
 */
export function resolveProbe(probe: ProbeSpec | null, inputs: ExperimentInputs): (ProbeSpec & { arguments: Record<string, unknown> }) | null {
  if (probe === null) return null;
  if (probe.arguments !== null) return { ...probe, arguments: probe.arguments };
  return { ...probe, arguments: { field: 'id', value: inputs.snapshot.records[0]?.id ?? '' } };
}

interface Watched {
  which: InputName;
  file: string;
  sha256: string;
  /** The identity of the file whose bytes were last hashed equal; null until the first check. */
  identity: string | null;
}

/**
 * Stops a run whose inputs changed after they were read. `assertUnchanged` runs before every server
 * start, model call and tool call, so it is cheap: a `stat` per file, and a re-read and re-hash only
 * when a file's identity (device, inode, size, modification and change time in nanoseconds, as
 * FrozenRecords compares them) differs from the last one hashed. The first call hashes every file
 * once. An edit that restores the modification time still changes the change time, so it is
 * hashed; a rewrite that keeps every one of those (a file system with coarse timestamps) is not seen.
 */
export class InputGuard {
  readonly #watched: Watched[];

  constructor(inputs: ExperimentInputs) {
    const watch = (which: InputName, file: InputBytes | undefined): Watched[] =>
      file === undefined ? [] : [{ which, file: file.file, sha256: file.sha256, identity: null }];
    this.#watched = [...watch('config', inputs.config), ...watch('snapshot', inputs.snapshot), ...watch('fields', inputs.fields), ...watch('tasks', inputs.tasks), ...watch('script', inputs.script)];
  }

  /**
   * Throws SOURCE_CHANGED with `data: { file, which, expected, actual }` for the first input whose
   * bytes no longer hash as they did (`actual` null when it vanished or cannot be read).
   */
  assertUnchanged(): void {
    for (const watched of this.#watched) check(watched);
  }
}

function check(watched: Watched): void {
  let identity: string;
  try {
    identity = identityOf(statSync(watched.file, { bigint: true }));
  } catch (error) {
    throw changed(watched, null, (error as Error).message);
  }
  if (identity === watched.identity) return;
  let read: FileRead;
  try {
    read = readInputFile(watched.file, watched.which);
  } catch (error) {
    throw changed(watched, null, (error as Error).message);
  }
  const actual = sha256Hex(read.bytes);
  if (actual !== watched.sha256) throw changed(watched, actual);
  // Touched, or copied over with the same bytes: nothing changed for the run.
  watched.identity = read.identity;
}

function changed(watched: Watched, actual: string | null, reason?: string): McpctxError {
  const what =
    actual === null
      ? `can no longer be read (${reason ?? 'unknown reason'})`
      : `changed during the run (sha256 ${watched.sha256.slice(0, 12)} is now ${actual.slice(0, 12)})`;
  return new McpctxError(
    'SOURCE_CHANGED',
    `The ${watched.which} file ${watched.file} ${what}. The run stops: answers from two versions of the inputs cannot be compared. ` +
      'Restore the file, or start a new run on the new data (and check the answer key against it).',
    { file: watched.file, which: watched.which, expected: watched.sha256, actual },
  );
}

interface FileRead {
  bytes: Buffer;
  /** Identity of the file the bytes came from (fstat of the open descriptor). */
  identity: string;
}

function figures(file: string, bytes: Buffer): InputBytes {
  return { file, sha256: sha256Hex(bytes), bytes: bytes.length };
}

/** Same fields, same order as FrozenRecords' identity. */
function identityOf(info: BigIntStats): string {
  return `${info.dev}:${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}`;
}

/**
 * A file's bytes, read once. Synchronous, because the guard must be (it runs inline before every
 * call). Opened non-blocking and checked to be a regular file before reading: a FIFO or a device in
 * place of an input would otherwise block the run forever.
 */
function readInputFile(file: string, which: InputName): FileRead {
  let descriptor: number;
  try {
    descriptor = openSync(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    throw new McpctxError('IO', `Cannot read the ${which} file ${file}: ${(error as Error).message}`, { file, which }, { cause: error });
  }
  try {
    const info = fstatSync(descriptor, { bigint: true });
    if (!info.isFile()) throw new McpctxError('IO', `Cannot read the ${which} file ${file}: it is not a regular file.`, { file, which });
    if (info.size > BigInt(MAX_INPUT_BYTES)) throw tooLarge(file, which, info.size);
    const bytes = readFileSync(descriptor);
    if (bytes.length > MAX_INPUT_BYTES) throw tooLarge(file, which, BigInt(bytes.length));
    return { bytes, identity: identityOf(info) };
  } catch (error) {
    if (error instanceof McpctxError) throw error;
    throw new McpctxError('IO', `Cannot read the ${which} file ${file}: ${(error as Error).message}`, { file, which }, { cause: error });
  } finally {
    closeSync(descriptor);
  }
}

function tooLarge(file: string, which: InputName, size: bigint): McpctxError {
  const reason = `is ${size.toLocaleString('en-US')} bytes, over the limit of ${MAX_INPUT_BYTES.toLocaleString('en-US')}`;
  if (which === 'config' || which === 'tasks' || which === 'script') return configError([{ path: '(file)', reason }], file, `${which} file`);
  return new McpctxError('INVALID_RECORDS', `The ${which} file ${file} ${reason}.`, { file, which, maxBytes: MAX_INPUT_BYTES });
}
