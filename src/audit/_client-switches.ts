/**
 * The clients' own off switches, which sit beside the server maps or in the client's settings rather
 * than in an entry: an entry they turn off is marked `disabled` with `disabledBy` (which file, which
 * key), so it is neither launched nor counted, and a Claude Code `.mcp.json` server nobody approved
 * is marked `pendingApproval` (measured, so its price is known, but not loaded by the session).
 *
 * Claude Code, as documented and reported by its vendor (read 2026-12-05):
 * - `projects[<cwd>].disabledMcpServers` in ~/.claude.json is what the `/mcp` panel writes when a
 *   server is toggled off for a project; it names servers of any scope
 *   (code.claude.com/docs/en/mcp: "Toggle a server off in the /mcp panel to stop Claude Code
 *   connecting to it without losing its configuration"; the key and its place: github.com/
 *   anthropics/claude-code/issues/44845 and /78314).
 * - `.mcp.json` servers need approval: "For security reasons, Claude Code prompts for approval
 *   before using project-scoped servers from .mcp.json files", and a dismissed prompt leaves the
 *   server disabled until approved from /mcp (code.claude.com/docs/en/mcp §Project scope and the
 *   MCP troubleshooting page, as quoted in github.com/anthropics/claude-code/issues/63308).
 *   `enabledMcpjsonServers` / `enableAllProjectMcpServers` approve, `disabledMcpjsonServers` rejects
 *   and wins in any settings file; approvals in the checked-in `.claude/settings.json` count only in
 *   a trusted folder. Since v2.1.197 the answer is saved to `.claude/settings.local.json`; older
 *   versions kept it under `projects[<cwd>]` in ~/.claude.json (staff reply in
 *   github.com/anthropics/claude-code/issues/75567, 2026-08-16), so both are read.
 *
 * Gemini CLI, from its source (google-gemini/gemini-cli 5411f11, packages/cli/src/config/settings.ts
 * and config/mcp/mcpServerEnablement.ts, read 2026-12-05): `mcp.excluded` lists are joined across
 * settings files, `mcp.allowed` lists are intersected, names compare lower-cased and trimmed, and a
 * server outside a defined allowlist or inside an exclusion does not load; nor does one that
 * `gemini mcp disable` turned off (`_gemini-enablement.ts`).
 */
import type { GeminiEnablement } from './_gemini-enablement.js';
import type { ConfigEntry, PlaceReport, SettingsSource } from './_types.js';

/** `geminiEnablement`: `gemini mcp disable`'s file, when discovering (a `--config` file has no client). */
export function applyClientSwitches(places: readonly PlaceReport[], settings: readonly SettingsSource[], geminiEnablement?: GeminiEnablement): void {
  applyClaudeCode(places.filter((place) => place.client === 'claude-code'), settings);
  applyGemini(places.filter((place) => place.client === 'gemini-cli'), geminiEnablement);
}

function turnOff(entry: ConfigEntry, by: string): void {
  if (entry.disabled) return;
  entry.disabled = true;
  entry.disabledBy = by;
}

/** Where a list of names was read: the file, and the key path shown to the reader. */
interface NamedIn {
  names: string[];
  where: string;
}

/** The list of names a place's switch holds (`PlaceReport.switches`), if it holds one. */
function namesAt(place: PlaceReport | undefined, path: string): string[] | undefined {
  const value = place?.switches?.[path];
  return Array.isArray(value) ? value : undefined;
}

function applyClaudeCode(places: readonly PlaceReport[], settings: readonly SettingsSource[]): void {
  const local = places.find((place) => place.scope === 'local' && place.state.state === 'read');
  const projectKey = local === undefined ? '' : `${local.path} projects[${JSON.stringify(local.serversAt[1] ?? '')}]`;

  const disabled = namesAt(local, 'disabledMcpServers');
  if (disabled !== undefined) {
    for (const entry of places.flatMap((place) => place.entries)) {
      if (disabled.includes(entry.name)) turnOff(entry, `${projectKey}.disabledMcpServers (what /mcp writes when a server is turned off)`);
    }
  }

  const rejections: NamedIn[] = [];
  const approvals: NamedIn[] = [];
  const approveAll: string[] = [];
  const fromSettings = settings.filter((source) => source.state.state === 'read');
  for (const source of fromSettings) {
    if (source.disabledMcpjsonServers !== undefined) rejections.push({ names: source.disabledMcpjsonServers, where: `${source.path} disabledMcpjsonServers` });
    if (source.enabledMcpjsonServers !== undefined) approvals.push({ names: source.enabledMcpjsonServers, where: `${source.path} enabledMcpjsonServers${trustNote(source)}` });
    if (source.enableAllProjectMcpServers === true) approveAll.push(`${source.path} enableAllProjectMcpServers${trustNote(source)}`);
  }
  const rejected = namesAt(local, 'disabledMcpjsonServers');
  if (rejected !== undefined) rejections.push({ names: rejected, where: `${projectKey}.disabledMcpjsonServers` });
  const approved = namesAt(local, 'enabledMcpjsonServers');
  if (approved !== undefined) approvals.push({ names: approved, where: `${projectKey}.enabledMcpjsonServers` });
  if (local?.switches?.enableAllProjectMcpServers === true) approveAll.push(`${projectKey}.enableAllProjectMcpServers`);

  for (const entry of places.filter((place) => place.scope === 'project').flatMap((place) => place.entries)) {
    const rejection = rejections.find((list) => list.names.includes(entry.name));
    if (rejection !== undefined) {
      turnOff(entry, `${rejection.where} (rejected at Claude Code's approval prompt)`);
      continue;
    }
    if (entry.disabled) continue;
    const approval = approvals.find((list) => list.names.includes(entry.name))?.where ?? approveAll[0];
    if (approval === undefined) {
      entry.pendingApproval =
        'Claude Code asks at session start whether to use this .mcp.json server and does not load it until approved; no enabledMcpjsonServers, disabledMcpjsonServers or enableAllProjectMcpServers read here names it, so it is measured but not counted';
    } else if (approval.endsWith(TRUSTED_ONLY)) {
      (entry.notes ??= []).push(`approved by ${approval}`);
    }
  }
}

const TRUSTED_ONLY = ' (the checked-in project settings approve only once the folder is trusted)';

/** The checked-in `.claude/settings.json` cannot approve its own servers in a folder not yet trusted. */
function trustNote(source: SettingsSource): string {
  return source.tier === 'project' ? TRUSTED_ONLY : '';
}

function normalized(name: string): string {
  return name.toLowerCase().trim();
}

function applyGemini(places: readonly PlaceReport[], enablement: GeminiEnablement | undefined): void {
  const excluded: NamedIn[] = [];
  const allowed: NamedIn[] = [];
  for (const place of places) {
    const out = namesAt(place, 'mcp.excluded');
    if (out !== undefined) excluded.push({ names: out.map(normalized), where: `${place.path} mcp.excluded` });
    const only = namesAt(place, 'mcp.allowed');
    if (only !== undefined) allowed.push({ names: only.map(normalized), where: `${place.path} mcp.allowed` });
  }
  for (const entry of places.flatMap((place) => place.entries)) {
    const name = normalized(entry.name);
    // Gemini checks the allowlist first: a server outside any defined one does not load.
    const outside = allowed.find((list) => !list.names.includes(name));
    if (outside !== undefined) {
      turnOff(entry, `${outside.where} (the allowlist does not name it)`);
      continue;
    }
    const exclusion = excluded.find((list) => list.names.includes(name));
    if (exclusion !== undefined) {
      turnOff(entry, exclusion.where);
      continue;
    }
    if (enablement?.disabled.includes(name) === true) turnOff(entry, `${enablement.path} (what gemini mcp disable writes)`);
    else if (enablement?.state.state === 'unreadable' && !entry.disabled) {
      (entry.notes ??= []).push(`${enablement.path} exists and cannot be read (${enablement.state.why}): whether gemini mcp disable turned this server off is not known`);
    }
  }
}
