import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { createFileStore, defaultHostStoreDir, fileStoreKey } from '../_file-store.js';
import { HostShaper } from '../_host-shaper.js';
import { loadHostRules } from '../_rules.js';

/**
 * The session id every handle is bound to. Claude Code runs the hook once per call, and the
 * read_result server as another process that never sees the hook's session_id: both must agree on
 * one id. What keeps the store to its owner is the folder (0700) and its key (0600).
 */
export const HOOK_SESSION_ID = 'claude-code';

/** Where the hook and the read_result server find the rules and the kept results. */
export interface HookPlaces {
  /** A gateway config or a host rules file (relative to cwd); none: only the cap applies. */
  readonly rulesFile?: string;
  /** The folder of kept results (relative to cwd); default `defaultHostStoreDir(env, home)`. */
  readonly storeDir?: string;
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  /** Default: the user's home folder. */
  readonly home?: string;
}

/** The absolute store folder the places name. */
export function hookStoreDir(places: HookPlaces): string {
  return places.storeDir === undefined ? resolve(places.cwd, defaultHostStoreDir(places.env, places.home ?? homedir())) : resolve(places.cwd, places.storeDir);
}

/** A shaper over the shared file store, with the folder's key and the one session id. Bad rules: INVALID_CONFIG; an unusable folder: IO. */
export async function openHookShaper(places: HookPlaces): Promise<{ shaper: HostShaper; storeDir: string }> {
  const storeDir = hookStoreDir(places);
  const rules = places.rulesFile === undefined ? undefined : await loadHostRules(resolve(places.cwd, places.rulesFile));
  const store = createFileStore(storeDir);
  const shaper = new HostShaper({ ...(rules === undefined ? {} : { rules }), store, key: fileStoreKey(storeDir), sessionId: HOOK_SESSION_ID });
  return { shaper, storeDir };
}
