import type { Command } from 'commander';
import type { CliIo } from './_io.js';

/** Fills in a command main.ts created (name and summary): description, options, subcommands, action. */
export type CommandSetup = (command: Command, io: CliIo, setExit: (code: number) => void) => void;

export interface CommandEntry {
  readonly name: string;
  /** One line for `mcpctx --help`; the command's own module adds the rest. */
  readonly summary: string;
  /** The command's module, imported only when that command runs (or its help is asked for). */
  readonly load: () => Promise<CommandSetup>;
}

/**
 * Every command, in the order `mcpctx --help` lists them. Only this table is read at start-up:
 * `mcpctx --version` or `mcpctx sweep` never pay for the gateway's, the optimizer's or the model
 * providers' code (changesets' `cli.ts` does the same).
 */
export const COMMANDS: readonly CommandEntry[] = [
  { name: 'measure', summary: "count a server's tool catalog in o200k_base tokens", load: async () => (await import('./measure.js')).setupMeasure },
  { name: 'verify', summary: 're-derive the figures of measurement files from their captures', load: async () => (await import('./verify.js')).setupVerify },
  {
    name: 'inspect-result',
    summary: 'count one tool result in o200k_base tokens, field by field',
    load: async () => (await import('./inspect-result.js')).setupInspectResult,
  },
  { name: 'optimizer', summary: "the context optimizer's MCP server", load: async () => (await import('./optimizer.js')).setupOptimizer },
  {
    name: 'optimize',
    summary: 'one compact, task-specific context from a JSON file of session records',
    load: async () => (await import('./optimize.js')).setupOptimize,
  },
  { name: 'gateway', summary: 'a token budget in front of MCP servers you do not own', load: async () => (await import('./gateway.js')).setupGateway },
  {
    name: 'site',
    summary: 'build a static site (leaderboard, server pages, methodology) from a results folder',
    load: async () => (await import('./site.js')).setupSite,
  },
  {
    name: 'sweep',
    summary: 'measure every server of a servers file into a results folder (leaderboard, history, badges)',
    load: async () => (await import('./sweep.js')).setupSweep,
  },
  {
    name: 'audit',
    summary: 'what the MCP servers configured on this machine cost each client session, and who defers them',
    load: async () => (await import('./audit.js')).setupAudit,
  },
  {
    name: 'auth',
    summary: 'OAuth logins to remote MCP servers: list them, log out (revoking the tokens)',
    load: async () => (await import('./auth.js')).setupAuth,
  },
  {
    name: 'hook',
    summary: 'shape MCP tool results inside Claude Code: a PostToolUse hook, its read_result server, install and uninstall',
    load: async () => (await import('./hook.js')).setupHook,
  },
  {
    name: 'experiment',
    summary: 'prove a cut kept the answer: the same questions through a baseline and an optimized server, answers checked first',
    load: async () => (await import('./experiment.js')).setupExperiment,
  },
  {
    name: 'calibrate',
    summary: "measure one Claude model's safety factor over o200k counts with count_tokens (caps in Claude tokens)",
    load: async () => (await import('./calibrate.js')).setupCalibrate,
  },
  {
    name: 'routing',
    summary: 'measure how catalog size, distractors and retrieval change which tool is chosen',
    load: async () => (await import('./routing.js')).setupRouting,
  },
];

/**
 * The command a command line runs, if any: its first word, or the word after `help`. Only that
 * command's module is loaded; a misspelt one is left to commander, which suggests the closest.
 */
export function commandToLoad(argv: readonly string[]): CommandEntry | undefined {
  const [first, second] = argv;
  const name = first === 'help' ? second : first;
  return COMMANDS.find((entry) => entry.name === name);
}
