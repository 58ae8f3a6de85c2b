import { spawn } from 'node:child_process';

/**
 * Starts the user's browser on `url` without waiting for it: `$BROWSER` when set (its first
 * entry: the variable may list several, separated by ':'), else the platform's opener. True when
 * the program started; false when there is none (a headless machine), so the caller prints the URL.
 */
export function openInBrowser(url: string, env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): Promise<boolean> {
  const [command, args] = openerFor(url, env, platform);
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn(command, args, { stdio: 'ignore', env, windowsHide: true });
    } catch {
      resolve(false);
      return;
    }
    child.once('error', () => resolve(false));
    child.once('spawn', () => {
      child.unref();
      resolve(true);
    });
  });
}

function openerFor(url: string, env: NodeJS.ProcessEnv, platform: NodeJS.Platform): [string, string[]] {
  const chosen = env.BROWSER?.split(platform === 'win32' ? ';' : ':')[0]?.trim();
  if (chosen !== undefined && chosen !== '') return [chosen, [url]];
  if (platform === 'darwin') return ['open', [url]];
  // Not `cmd /c start`: cmd would read the URL's & as a command separator.
  if (platform === 'win32') return ['rundll32', ['url.dll,FileProtocolHandler', url]];
  return ['xdg-open', [url]];
}
