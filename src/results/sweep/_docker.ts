import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { LaunchSpec } from '../../mcp/index.js';

export const DEFAULT_DOCKER_IMAGE = 'node:20';

/**
 * A stdio launch run inside a throwaway container: `docker run --rm -i --network host <image>
 * <command> <args>`. Variables go by name only (`-e NAME`): docker reads each value from its own
 * environment, which the launch still carries, so no value ever appears in an argv (ps, the
 * record). A remote entry (a URL, no command) is never wrapped.
 */
export function dockerLaunch<Launch extends object>(launch: Launch, image: string = DEFAULT_DOCKER_IMAGE): Launch {
  if (!('command' in launch)) return launch;
  const stdio = launch as Launch & LaunchSpec;
  const envFlags = Object.keys(stdio.env ?? {})
    .sort()
    .flatMap((name) => ['-e', name]);
  return { ...stdio, command: 'docker', args: ['run', '--rm', '-i', '--network', 'host', ...envFlags, image, stdio.command, ...(stdio.args ?? [])] };
}

/** The path of an executable found on PATH, or null. */
export function findOnPath(name: string, path: string | undefined = process.env.PATH): string | null {
  for (const folder of (path ?? '').split(delimiter)) {
    if (folder === '') continue;
    const candidate = join(folder, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return null;
}
