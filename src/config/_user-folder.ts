import { posix, win32 } from 'node:path';

/** Where the folder is computed for: the platform and the user's folders (a temp folder in tests). */
export interface UserFolderRoots {
  platform: 'linux' | 'darwin' | 'win32';
  home: string;
  /** Windows `%APPDATA%`; default `<home>/AppData/Roaming`. Unused on other platforms. */
  appData?: string;
}

/**
 * mcpctx's folder in the user's config folder, where what it keeps for the user lives (wrap's
 * gateway configs, OAuth logins): `$XDG_CONFIG_HOME/mcpctx` (a relative XDG_CONFIG_HOME is
 * ignored, as the XDG spec says, for `~/.config/mcpctx`), `~/Library/Application Support/mcpctx`,
 * `%APPDATA%\mcpctx`. Pure: nothing is read or created.
 */
export function userConfigFolder(roots: UserFolderRoots, env: Readonly<Record<string, string | undefined>>): string {
  if (roots.platform === 'win32') return win32.join(roots.appData ?? win32.join(roots.home, 'AppData', 'Roaming'), 'mcpctx');
  if (roots.platform === 'darwin') return posix.join(roots.home, 'Library', 'Application Support', 'mcpctx');
  const xdg = env.XDG_CONFIG_HOME;
  return posix.join(xdg !== undefined && posix.isAbsolute(xdg) ? xdg : posix.join(roots.home, '.config'), 'mcpctx');
}
