/**
 * What each client's vendor has put on record about deferring MCP tool definitions: the one data
 * file audit prints from. A record is a first-party statement on a surface the vendor controls
 * (its documentation, its dated engineering blog or changelog, its public source at a commit),
 * readable at a fixed address, with a date. A record is not a measurement: audit prints it as what
 * the vendor says, never as what a session paid. Clients with no record pay the whole total.
 *
 * Claude Code is not here: its posture is read from the machine (`_deferral.ts`).
 */
import type { ClientId } from './_types.js';

export interface RecordSource {
  kind: 'documentation' | 'engineering-blog' | 'public-source';
  title: string;
  address: string;
  /** The date the source carries, or `undated` for a page that shows none. */
  dated: string;
  /** When this project read it. */
  read: string;
}

export interface DeferralRecord {
  client: ClientId;
  /** What the vendor states it does, in this project's words. */
  states: string;
  /** What the statement leaves open or makes conditional. */
  conditions: string[];
  sources: RecordSource[];
}

export interface NoRecord {
  client: ClientId;
  /** What was searched, and when: an absence that was looked for. */
  searched: string;
}

export const DEFERRAL_RECORDS: readonly DeferralRecord[] = Object.freeze([
  {
    client: 'cursor',
    states:
      'the agent is given the names of MCP tools and looks up a tool\'s full definition when a task calls for it, instead of receiving every definition up front',
    conditions: [
      'what Cursor\'s backend sends to the model provider is on no surface this audit reads',
      'the post reports an A/B test on runs that called an MCP tool; it does not say the behaviour applies to every model or plan',
    ],
    sources: [
      {
        kind: 'engineering-blog',
        title: 'Dynamic context discovery',
        address: 'https://cursor.com/blog/dynamic-context-discovery',
        dated: '2026-01-06',
        read: '2026-12-05',
      },
    ],
  },
  {
    client: 'codex-cli',
    states:
      'MCP tools are deferred behind its tool_search tool by default: the model first receives tool_search, searches, and gets the matching MCP tool definitions in the next request; the earlier feature flag (tool_search_always_defer_mcp_tools) is retired and ignored',
    conditions: [
      'only where the model and the provider support tool_search and namespaced tools; otherwise MCP tools are exposed directly, every definition up front',
      'the default since the change cited (merged 2026-06-22); releases before it deferred only behind a feature flag or at 100 tools or more, and which release the audited machine runs is not read',
    ],
    sources: [
      {
        kind: 'public-source',
        title: 'openai/codex pull request #29486 "Use tool search for MCP tools by default" (merged)',
        address: 'https://github.com/openai/codex/pull/29486',
        dated: '2026-06-22',
        read: '2026-12-05',
      },
    ],
  },
  {
    client: 'vscode',
    states:
      'when the number of tools in a chat request is over the setting github.copilot.chat.virtualTools.threshold (default 128), tools are grouped into virtual tools whose members the model activates on demand; built-in tools are never grouped',
    conditions: [
      'the threshold counts tools, not tokens, and counts every tool in the window (built-in, extension and MCP): a session under it sends every definition up front',
      'the setting is marked experimental in the settings reference; 0 disables virtual tools',
      'the setting replaced github.copilot.chat.virtualTools.enabled (a boolean) in the change cited; this audit does not read VS Code\'s settings for its value',
    ],
    sources: [
      {
        kind: 'documentation',
        title: 'GitHub Copilot in VS Code settings reference, Agent settings: github.copilot.chat.virtualTools.threshold',
        address: 'https://code.visualstudio.com/docs/copilot/reference/copilot-settings',
        dated: '2026-05-20',
        read: '2026-12-05',
      },
      {
        kind: 'public-source',
        title: 'microsoft/vscode-copilot-chat pull request #396 "tools: simplify virtual tool enablement" (merged): the setting configures the threshold',
        address: 'https://github.com/microsoft/vscode-copilot-chat/pull/396',
        dated: '2025-07-30',
        read: '2026-12-05',
      },
      {
        kind: 'public-source',
        title: 'microsoft/vscode-copilot-chat pull request #310 "tools: initial implementation of virtual tools" (merged): grouping, activation on call, built-in tools never grouped',
        address: 'https://github.com/microsoft/vscode-copilot-chat/pull/310',
        dated: '2025-07-18',
        read: '2026-12-05',
      },
    ],
  },
]);

/**
 * Where Claude Code's deferral rules come from. Its posture is read from the machine, not taken from a
 * record, but the rules that reading applies (`_deferral.ts`) are the vendor's: printed beside the posture.
 */
export const CLAUDE_CODE_POSTURE_SOURCES: readonly RecordSource[] = Object.freeze([
  {
    kind: 'documentation',
    title: 'Claude Code docs, "Connect Claude Code to tools via MCP": Configure tool search (ENABLE_TOOL_SEARCH, auto, auto:N)',
    address: 'https://code.claude.com/docs/en/mcp#configure-tool-search',
    dated: 'undated',
    read: '2026-12-05',
  },
  {
    kind: 'public-source',
    title: 'anthropics/claude-code release v2.1.7: MCP tool search auto mode on by default, deferring once descriptions exceed 10% of the context window',
    address: 'https://github.com/anthropics/claude-code/releases/tag/v2.1.7',
    dated: '2026-01-14',
    read: '2026-12-05',
  },
  {
    kind: 'public-source',
    title: 'anthropics/claude-code CHANGELOG.md 2.1.9: the auto:N threshold syntax',
    address: 'https://github.com/anthropics/claude-code/blob/main/CHANGELOG.md',
    dated: '2026-01',
    read: '2026-12-05',
  },
]);

/** Clients for which no default deferral is on record: a config they read carries its whole total in every request. */
export const NO_RECORD: readonly NoRecord[] = Object.freeze([
  { client: 'claude-desktop', searched: 'its MCP configuration page, read 2026-09-06 (closed source)' },
  { client: 'windsurf', searched: 'its MCP configuration page, read 2026-09-06 (it states a cap of 100 tools, which is not deferral; closed source)' },
  { client: 'gemini-cli', searched: 'its MCP configuration page, read 2026-09-06, and its source, searched 2026-09-07; its tracker re-searched 2026-12-05: the request for a tool search tool (google-gemini/gemini-cli issue #17322) was closed as stale, not implemented' },
  { client: 'zed', searched: 'its MCP configuration page, read 2026-09-06, and its source, searched 2026-09-07' },
  { client: 'goose', searched: 'its MCP configuration page, read 2026-09-06, and its source, searched 2026-09-07' },
  { client: 'kiro', searched: 'its MCP configuration page, read 2026-09-06 (closed source); its tracker re-searched 2026-12-05: the request for deferred loading (kirodotdev/Kiro issue #6304) was closed as a duplicate, not implemented' },
]);

export function deferralRecordOf(client: ClientId): DeferralRecord | undefined {
  return DEFERRAL_RECORDS.find((record) => record.client === client);
}

export function noRecordOf(client: ClientId): NoRecord | undefined {
  return NO_RECORD.find((record) => record.client === client);
}
