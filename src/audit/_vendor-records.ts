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
  /** The date the source carries. */
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
        read: '2026-12-02',
      },
    ],
  },
  {
    client: 'codex-cli',
    states:
      'an experimental feature flag, search_tool, keeps MCP tools out of the model\'s tool list until the model selects them through a search tool (search_tool_bm25)',
    conditions: [
      'behind a feature flag at the commit cited: not the default there',
      'later reports (openai/codex issues #11821, #33608) describe the behaviour changing between releases; which release the audited machine runs is not read',
    ],
    sources: [
      {
        kind: 'public-source',
        title: 'openai/codex pull request #10657 "feat: search_tool" (merged)',
        address: 'https://github.com/openai/codex/pull/10657',
        dated: '2026-02-04',
        read: '2026-12-02',
      },
    ],
  },
  {
    client: 'vscode',
    states:
      'with a setting enabled, when the tool count is over a threshold, tools are grouped into virtual tools that show their members only when the model calls the group; built-in tools are never grouped',
    conditions: [
      'behind the setting github.copilot.chat.virtualTools.enabled at the commit cited',
      'the threshold value is not stated in the commit message',
    ],
    sources: [
      {
        kind: 'public-source',
        title: 'commit 2732a9f48f7025e44fb218e5adf3710c494baf32 "tools: initial implementation of virtual tools (#310)"',
        address: 'https://gitmorph.com/microsoft/vscode/commit/2732a9f48f7025e44fb218e5adf3710c494baf32',
        dated: '2025-07-19',
        read: '2026-12-02',
      },
    ],
  },
]);

/** Clients for which no default deferral is on record: a config they read carries its whole total in every request. */
export const NO_RECORD: readonly NoRecord[] = Object.freeze([
  { client: 'claude-desktop', searched: 'its MCP configuration page, read 2026-09-06 (closed source)' },
  { client: 'windsurf', searched: 'its MCP configuration page, read 2026-09-06 (it states a cap of 100 tools, which is not deferral; closed source)' },
  { client: 'gemini-cli', searched: 'its MCP configuration page, read 2026-09-06, and its source, searched 2026-09-07' },
  { client: 'zed', searched: 'its MCP configuration page, read 2026-09-06, and its source, searched 2026-09-07' },
  { client: 'goose', searched: 'its MCP configuration page, read 2026-09-06, and its source, searched 2026-09-07' },
  { client: 'kiro', searched: 'its MCP configuration page, read 2026-09-06 (closed source)' },
]);

export function deferralRecordOf(client: ClientId): DeferralRecord | undefined {
  return DEFERRAL_RECORDS.find((record) => record.client === client);
}

export function noRecordOf(client: ClientId): NoRecord | undefined {
  return NO_RECORD.find((record) => record.client === client);
}
