// A writable copy of the bundled experiment (examples/experiment) in a temp folder: the same
// servers, data, tasks and turns, with the test marker in both servers' env (for the leak check)
// and hooks to change the tasks, the snapshot or the turns of one test.
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { parse } from 'yaml';
import { markedEnv } from './processes.js';

export const EXAMPLE_DIR = fileURLToPath(new URL('../../examples/experiment/', import.meta.url));
export const RECORDS_SERVER = fileURLToPath(new URL('../../examples/records-server/server.js', import.meta.url));
const RECORDS_DATA = fileURLToPath(new URL('../../examples/records-server/data/', import.meta.url));

export interface DemoCopy {
  dir: string;
  config: string;
  snapshot: string;
  tasks: string;
  turns: string;
}

export interface DemoOptions {
  /** Change the tasks before they are written. */
  tasks?: (tasks: Array<Record<string, unknown>>) => Array<Record<string, unknown>>;
  /** Change the config (parsed YAML) before it is written. */
  config?: (config: Record<string, unknown>) => void;
}

export function copyDemo(options: DemoOptions = {}): DemoCopy {
  const dir = mkdtempSync(join(tmpdir(), 'mcpctx-experiment-'));
  const snapshot = join(dir, 'snapshot.json');
  const fields = join(dir, 'fields.json');
  const tasks = join(dir, 'tasks.json');
  const turns = join(dir, 'turns.json');
  copyFileSync(join(RECORDS_DATA, 'snapshot.json'), snapshot);
  copyFileSync(join(RECORDS_DATA, 'fields.json'), fields);
  copyFileSync(join(EXAMPLE_DIR, 'turns.json'), turns);
  const taskList = JSON.parse(readFileSync(join(EXAMPLE_DIR, 'tasks.json'), 'utf8')) as Array<Record<string, unknown>>;
  writeFileSync(tasks, JSON.stringify(options.tasks ? options.tasks(taskList) : taskList, null, 2));
  const config = parse(readFileSync(join(EXAMPLE_DIR, 'config.yaml'), 'utf8')) as Record<string, unknown>;
  config.snapshot = snapshot;
  config.fields = fields;
  config.tasks = tasks;
  const conditions = config.conditions as Record<string, { args: string[]; env: Record<string, string> }>;
  for (const condition of Object.values(conditions)) {
    condition.args = [RECORDS_SERVER];
    condition.env = { ...condition.env, ...markedEnv() };
  }
  (config.model as Record<string, unknown>).script = turns;
  options.config?.(config);
  const file = join(dir, 'config.yaml');
  writeFileSync(file, stringify(config));
  return { dir, config: file, snapshot, tasks, turns };
}
