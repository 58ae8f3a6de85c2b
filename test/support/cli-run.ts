// Runs the CLI in-process with captured output, as a user's terminal would see it.
import { runCli } from '../../src/cli/main.js';
import { TEST_MARK_NAME, TEST_OWNER_NAME, markedEnv } from './processes.js';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** `env` is the environment the CLI reads (header values of --url); empty by default. */
export async function runCliCaptured(args: readonly string[], cwd: string = process.cwd(), env: NodeJS.ProcessEnv = {}): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text), isTTY: false },
    cwd,
    env,
  });
  return { code, stdout, stderr };
}

/** The marker env as --env flags, so servers the CLI launches are found by the leak check. */
export function markFlags(): string[] {
  const env = markedEnv();
  return [TEST_MARK_NAME, TEST_OWNER_NAME].flatMap((name) => ['--env', `${name}=${env[name]}`]);
}
