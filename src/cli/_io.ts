/** What a command may touch of the outside world; tests pass their own. */
export interface CliIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown; isTTY?: boolean };
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** What a command reads on stdin (the hook's JSON); default process.stdin. */
  stdin?: NodeJS.ReadableStream;
  /**
   * How the user started mcpctx (`mcpctx`, `npx mcpctx`, `node dist/cli/main.js`): the usage lines,
   * examples and hints it prints name it, so a command it tells someone to run works from where
   * they are. Default `mcpctx`.
   */
  invocation?: string;
  /** The same, runnable from any folder (an absolute path): what an MCP client's config should run. Default `mcpctx`. */
  invocationAnywhere?: string;
}

export const EXIT = Object.freeze({ ok: 0, finding: 1, usage: 2, failed: 3 });

/** The words that start mcpctx for this io, ready to put before a command. */
export function invocationOf(io: CliIo): string {
  return io.invocation ?? 'mcpctx';
}
