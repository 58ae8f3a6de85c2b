import { fileURLToPath } from 'node:url';
import type { LaunchSpec } from '../../src/mcp/index.js';
import { markedEnv } from './processes.js';

export const PROJECT_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** A pinned reference server from node_modules (devDependencies: no network at run time). */
export function referenceServer(name: 'everything' | 'filesystem' | 'memory' | 'sequential-thinking', args: string[] = []): LaunchSpec {
  return {
    command: process.execPath,
    args: [`${PROJECT_ROOT}node_modules/@modelcontextprotocol/server-${name}/dist/index.js`, ...args],
    env: markedEnv(),
  };
}
