// A ConfigEntry as the reader would produce it, for tests that start from entries: a stdio
// `node <name>.js` by default, every field overridable.
import type { ConfigEntry } from '../../src/audit/_types.js';

export function configEntry(name: string, overrides: Partial<ConfigEntry> = {}): ConfigEntry {
  return {
    name,
    client: 'claude-code',
    scope: 'user',
    path: '/h/.claude.json',
    transport: 'stdio',
    command: 'node',
    args: [`${name}.js`],
    envNames: [],
    headerNames: [],
    disabled: false,
    alwaysLoad: false,
    expansions: [],
    launchEnv: {},
    ...overrides,
  };
}
