/**
 * Gemini CLI's `~/.gemini/mcp-server-enablement.json`: what `gemini mcp disable <name>` writes (a
 * map of lower-cased server names to `{ "enabled": false }`), read by Gemini before it connects a
 * server (packages/cli/src/config/mcp/mcpServerEnablement.ts at google-gemini/gemini-cli 5411f11,
 * read 2026-12-05). Only names are kept.
 */
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { isPlainObject } from '../json/index.js';
import type { AuditRoots, PlaceState } from './_types.js';

export interface GeminiEnablement {
  path: string;
  state: PlaceState;
  /** Server names turned off, lower-cased and trimmed as Gemini compares them. */
  disabled: string[];
}

/** The file is a line per server; far larger is not an enablement file. */
const MAX_ENABLEMENT_BYTES = 1024 * 1024;

export async function readGeminiEnablement(roots: AuditRoots): Promise<GeminiEnablement> {
  const path = join(roots.home, '.gemini', 'mcp-server-enablement.json');
  const result = (state: PlaceState, disabled: string[] = []): GeminiEnablement => ({ path, state, disabled });
  let text: string;
  try {
    const info = await stat(path);
    if (!info.isFile()) return result({ state: 'unreadable', why: 'not a regular file' });
    if (info.size > MAX_ENABLEMENT_BYTES) return result({ state: 'unreadable', why: `larger than ${MAX_ENABLEMENT_BYTES} bytes` });
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return result({ state: 'absent' });
    return result({ state: 'unreadable', why: code === undefined ? 'read error' : `read error ${code}` });
  }
  let document: unknown;
  try {
    document = JSON.parse(text) as unknown;
  } catch {
    return result({ state: 'unreadable', why: 'not valid JSON' });
  }
  if (!isPlainObject(document)) return result({ state: 'unreadable', why: 'not a JSON object of servers by name' });
  const disabled = Object.entries(document)
    .filter(([, state]) => isPlainObject(state) && Object.hasOwn(state, 'enabled') && state.enabled === false)
    .map(([name]) => name.toLowerCase().trim());
  return result({ state: 'read' }, disabled);
}
