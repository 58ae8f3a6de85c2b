/**
 * What ran the experiment, for the receipt: Node, mcpctx and the versions of the packages that
 * shaped a figure (the provider SDKs, the tokenizer), and the lockfile's hash when there is one.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sha256Hex } from '../tokens/index.js';
import type { ExperimentReceipt } from './_types.js';

/** The packages whose version can change a recorded byte or token. */
const RECORDED_PACKAGES = ['@anthropic-ai/sdk', 'openai', 'gpt-tokenizer', 'yaml'] as const;

// Both src/experiment and dist/experiment sit two levels below the package root.
const PACKAGE_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);

export type RuntimeRecord = NonNullable<ExperimentReceipt['runtime']>;

export function runtimeRecord(): RuntimeRecord {
  const packages: Record<string, string> = {};
  for (const name of RECORDED_PACKAGES) packages[name] = packageVersion(name);
  const lockfile = join(PACKAGE_ROOT, 'package-lock.json');
  return {
    node: process.version,
    mcpctx: readVersion(join(PACKAGE_ROOT, 'package.json')) ?? 'unknown',
    packages,
    lockfileSha256: existsSync(lockfile) ? sha256Hex(readFileSync(lockfile)) : null,
    platform: `${process.platform}-${process.arch}`,
  };
}

/** The installed version of a package, found from its entry point (export maps may hide its package.json). */
function packageVersion(name: string): string {
  let entry: string;
  try {
    entry = require.resolve(name);
  } catch {
    return 'not installed';
  }
  for (let dir = dirname(entry); dir !== dirname(dir); dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (!existsSync(file)) continue;
    const manifest = readManifest(file);
    // A nested manifest can carry the name without a version (gpt-tokenizer's cjs/package.json
    // says only its module type): the package's own is further up.
    if (manifest?.name === name && typeof manifest.version === 'string') return manifest.version;
  }
  return 'unknown';
}

function readVersion(file: string): string | undefined {
  return readManifest(file)?.version;
}

function readManifest(file: string): { name?: string; version?: string } | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
  } catch {
    return undefined;
  }
}
