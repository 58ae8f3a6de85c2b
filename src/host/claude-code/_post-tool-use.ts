import { resolve } from 'node:path';
import type { HostNotice } from '../_forms.js';
import type { HostShaped } from '../_host-shaper.js';
import { appendHookLog, type HookLogEntry } from './_hook-log.js';
import { mcpToolOf, parseHookInput } from './_hook-input.js';
import { hookStoreDir, openHookShaper, type HookPlaces } from './_hook-shaper.js';

/** The tool the read_result server offers: its pages are already under the cap, never shaped again. */
const READ_RESULT = 'read_result';

/** What Claude Code reads from a PostToolUse command hook's stdout to replace an MCP tool's result. */
export interface PostToolUseAnswer {
  readonly hookSpecificOutput: { readonly hookEventName: 'PostToolUse'; readonly updatedMCPToolOutput: unknown };
}

export interface PostToolUseOptions extends HookPlaces {
  /** The hook's stdin as read (see readBoundedInput), or why it could not be read. */
  readonly input: { ok: true; text: string } | { ok: false; reason: string };
  /** The log file (relative to cwd); default `<store>/hook-log.jsonl`. */
  readonly logFile?: string;
  readonly now?: () => Date;
  readonly signal?: AbortSignal;
}

/** What the hook did: the answer to print (none: the result goes to the model as it came), the log entry, a line for stderr. */
export interface PostToolUseOutcome {
  readonly answer?: PostToolUseAnswer;
  readonly entry: HookLogEntry;
  /** Why the hook did nothing when that was not by design (bad input, bad rules, a store that failed). */
  readonly warning?: string;
  readonly logFile: string;
}

/**
 * Claude Code's PostToolUse command hook on one call: the MCP tool's result shaped by the rules
 * (kept behind a read_result handle over the cap or a tool's pageTokens), or left alone when
 * nothing changes, when the tool is not an MCP tool or is read_result, and when Claude Code's own
 * limit fired first (its "saved to file" notice is passed through and logged). Never throws: any
 * failure leaves the result as it came, with a warning. Appends one line to the log, without the
 * result itself.
 */
export async function runPostToolUse(options: PostToolUseOptions): Promise<PostToolUseOutcome> {
  const now = options.now ?? (() => new Date());
  const logFile = options.logFile === undefined ? resolve(hookStoreDir(options), 'hook-log.jsonl') : resolve(options.cwd, options.logFile);
  const finish = (entry: Omit<HookLogEntry, 'time'>, extra: { answer?: PostToolUseAnswer; warning?: string } = {}): PostToolUseOutcome => {
    const logged: HookLogEntry = { time: now().toISOString(), ...entry };
    const logProblem = appendHookLog(logFile, logged);
    const warning = [extra.warning, logProblem].filter((line) => line !== undefined).join('; ');
    return { entry: logged, logFile, ...(extra.answer === undefined ? {} : { answer: extra.answer }), ...(warning === '' ? {} : { warning }) };
  };
  if (!options.input.ok) return finish({ action: 'bad-input', reason: options.input.reason }, { warning: options.input.reason });
  const read = parseHookInput(options.input.text);
  if (!read.ok) return finish({ action: 'bad-input', reason: read.reason }, { warning: read.reason });
  const { input } = read;
  const ids = { tool: input.toolName, ...(input.toolUseId === undefined ? {} : { toolUseId: input.toolUseId }) };
  const mcp = mcpToolOf(input.toolName, input.serverName);
  if (mcp === undefined) return finish({ ...ids, action: 'not-mcp' });
  if (mcp.tool === READ_RESULT) return finish({ ...ids, server: mcp.server, action: 'read-result' });
  let shaped: HostShaped;
  try {
    const { shaper } = await openHookShaper(options);
    try {
      shaped = await shaper.shapeAsync({ tool: mcp.tool, server: mcp.server, ...(input.toolInput === undefined ? {} : { arguments: input.toolInput }) }, input.toolResponse, options.signal);
    } finally {
      shaper.close();
    }
  } catch (error) {
    const reason = `the result was left as it came: ${(error as Error).message}`;
    return finish({ ...ids, server: mcp.server, action: 'failed', reason }, { warning: reason });
  }
  const entry: Omit<HookLogEntry, 'time'> = {
    ...ids,
    server: mcp.server,
    action: shaped.action,
    form: shaped.form,
    tokensBefore: shaped.tokensBefore,
    tokensAfter: shaped.tokensAfter,
    ...(shaped.handle === undefined ? {} : { handle: shaped.handle }),
    ...(shaped.notice === undefined ? {} : { notice: noticeEntry(shaped.notice) }),
  };
  if (!shaped.changed) return finish(entry);
  return finish(entry, { answer: { hookSpecificOutput: { hookEventName: 'PostToolUse', updatedMCPToolOutput: shaped.output } } });
}

function noticeEntry(notice: HostNotice): HookLogEntry['notice'] {
  return {
    host: notice.host,
    text: notice.text,
    ...(notice.file === undefined ? {} : { file: notice.file }),
    ...(notice.characters === undefined ? {} : { characters: notice.characters }),
    ...(notice.tokens === undefined ? {} : { tokens: notice.tokens }),
  };
}
