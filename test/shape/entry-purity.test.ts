// mcpctx/shape is for server authors on any runtime: its root entry reaches no file system,
// process or database module. What needs node:fs lives in mcpctx/shape/files. Checked on the
// import graph of the sources, as the MCP TypeScript SDK checks its own root entry.
import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
const IMPURE = new Set(['fs', 'node:fs', 'fs/promises', 'node:fs/promises', 'child_process', 'node:child_process', 'better-sqlite3']);
const SPECIFIER = /(?:^|[\s;])(?:import|export)\s[^'"`;]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s*['"]([^'"]+)['"]/gm;

/** Every package or built-in module reachable from `entry`, with the first source file that imports it. */
function reachableModules(entry: string): Map<string, string> {
  const modules = new Map<string, string>();
  const seen = new Set<string>();
  const queue = [entry];
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    if (seen.has(file)) continue;
    seen.add(file);
    const source = readFileSync(file, 'utf8');
    for (const match of source.matchAll(SPECIFIER)) {
      const specifier = match[1] ?? match[2] ?? match[3] ?? '';
      if (specifier.startsWith('.')) queue.push(join(dirname(file), specifier.replace(/\.js$/, '.ts')));
      else if (!modules.has(specifier)) modules.set(specifier, relative(SRC, file));
    }
  }
  return modules;
}

describe('mcpctx/shape entry points', () => {
  it('the root entry reaches no node:fs, child_process or better-sqlite3', () => {
    const modules = reachableModules(join(SRC, 'shape/index.ts'));
    const impure = [...modules].filter(([name]) => IMPURE.has(name)).map(([name, from]) => `${name} (from ${from})`);
    expect(impure).toEqual([]);
    // The walk sees the graph: the tokenizer is reached through mcpctx/tokens.
    expect(modules.has('gpt-tokenizer/encoding/o200k_base')).toBe(true);
  });

  it('mcpctx/shape/files is where FrozenRecords and node:fs are', async () => {
    expect(reachableModules(join(SRC, 'shape/files/index.ts')).has('node:fs/promises')).toBe(true);
    const files = await import('../../src/shape/files/index.js');
    const root: Record<string, unknown> = await import('../../src/shape/index.js');
    expect(typeof files.FrozenRecords.load).toBe('function');
    expect(root.FrozenRecords).toBeUndefined();
  });

  it('package.json exports mcpctx/shape/files', () => {
    const pkg = JSON.parse(readFileSync(join(SRC, '../package.json'), 'utf8')) as { exports: Record<string, unknown> };
    expect(pkg.exports['./shape/files']).toEqual({ types: './dist/shape/files/index.d.ts', default: './dist/shape/files/index.js' });
  });
});
