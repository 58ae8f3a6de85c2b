/** What a command may touch of the outside world; tests pass their own. */
export interface CliIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown; isTTY?: boolean };
  cwd: string;
  env: NodeJS.ProcessEnv;
}

export const EXIT = Object.freeze({ ok: 0, finding: 1, usage: 2, failed: 3 });
