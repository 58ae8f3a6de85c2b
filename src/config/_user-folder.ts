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
  if (roots.platform === 'win32') return joined('\\', roots.appData ?? joined('\\', roots.home, 'AppData', 'Roaming'), 'mcpctx');
  if (roots.platform === 'darwin') return joined('/', roots.home, 'Library', 'Application Support', 'mcpctx');
  const xdg = env.XDG_CONFIG_HOME;
  return joined('/', xdg !== undefined && xdg.startsWith('/') ? xdg : joined('/', roots.home, '.config'), 'mcpctx');
}

/** Path parts joined with one separator between them (no node:path: this folder stays free of Node built-ins). */
function joined(separator: '/' | '\\', first: string, ...rest: string[]): string {
  const trimmed = rest.map((part) => part.replace(/^[\\/]+|[\\/]+$/g, ''));
  return [first.replace(/[\\/]+$/, ''), ...trimmed].join(separator);
}
