// The receipt's runtime record names the installed version of each package that shapes a figure.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runtimeRecord } from '../../src/experiment/_runtime.js';

const require = createRequire(import.meta.url);

/** The version in the package's own manifest at the top of its folder in node_modules. */
function installedVersion(name: string): string {
  let dir = dirname(require.resolve(name));
  while (!dir.endsWith(join('node_modules', ...name.split('/')))) dir = dirname(dir);
  return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;
}

describe('runtimeRecord', () => {
  it('records each package at its installed version, past a nested manifest without one (gpt-tokenizer/cjs/package.json)', () => {
    const { packages } = runtimeRecord();
    for (const name of ['@anthropic-ai/sdk', 'openai', 'gpt-tokenizer', 'yaml']) expect(packages[name], name).toBe(installedVersion(name));
  });
});
