// examples/registry.yaml, read the way a sweep reads it (nothing launched): enough real npm
// servers, each started by `npx -y` on an exact version, with keys that are visibly fake, and
// every not-applicable declaration backed by the words its failure is expected to print.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credentialsInArgs, namesCredential } from '../../src/mcp/index.js';
import { loadServersFile, type ServerEntry } from '../../src/measure/index.js';

const REGISTRY = fileURLToPath(new URL('../../examples/registry.yaml', import.meta.url));
const MIN_SERVERS = 30;
/** An npm package name, scoped or not, then `@` and an exact version: no range, tag or wildcard. */
const PINNED_SPEC = /^((?:@[a-z0-9][a-z0-9._-]*\/)?[a-z0-9][a-z0-9._-]*)@(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)$/;
/** A name that reads as a placeholder to anyone who sees it. */
const FAKE_MARK = /dummy|not-a-real/i;
const SHORT_NAME = /^[a-z0-9][a-z0-9-]{0,29}$/;

/** What is wrong with a registry's entries, one line each; empty when nothing is. */
function registryProblems(servers: readonly ServerEntry[]): string[] {
  const problems: string[] = [];
  if (servers.length < MIN_SERVERS) problems.push(`${servers.length} servers, fewer than ${MIN_SERVERS}`);
  const names = new Set<string>();
  const packages = new Map<string, string>();
  for (const { name, launch, notApplicable } of servers) {
    if (!SHORT_NAME.test(name)) problems.push(`${name}: not a short lower-case name`);
    if (names.has(name)) problems.push(`${name}: name used twice`);
    names.add(name);
    if ('url' in launch) {
      problems.push(`${name}: a remote entry; the registry lists npm packages launched by npx`);
      continue;
    }
    const args = launch.args ?? [];
    if (launch.command !== 'npx') problems.push(`${name}: command ${launch.command}, not npx`);
    if (args[0] !== '-y') problems.push(`${name}: first argument ${String(args[0])}, not -y`);
    const pinned = PINNED_SPEC.exec(args[1] ?? '');
    if (pinned?.[1] === undefined) {
      problems.push(`${name}: package ${String(args[1])} is not pinned to an exact version`);
    } else {
      const other = packages.get(pinned[1]);
      if (other !== undefined) problems.push(`${name}: package ${pinned[1]} already measured as ${other}`);
      packages.set(pinned[1], name);
    }
    for (const { value } of credentialsInArgs(args)) {
      if (!FAKE_MARK.test(value)) problems.push(`${name}: argument value ${value} looks like a real credential`);
    }
    for (const [variable, value] of Object.entries(launch.env ?? {})) {
      if (credentialsInArgs([value]).length > 0) problems.push(`${name}: env ${variable} has the shape of a real token`);
      if (namesCredential(variable) && !FAKE_MARK.test(value)) problems.push(`${name}: env ${variable} is a credential whose value is not visibly fake`);
    }
    if (notApplicable !== undefined && (notApplicable.expect.trim() === '' || notApplicable.reason.trim() === '')) {
      problems.push(`${name}: notApplicable without reason or expected words`);
    }
  }
  return problems;
}

describe('examples/registry.yaml', () => {
  it(`lists at least ${MIN_SERVERS} npm servers, each launched by npx -y on an exact version, with fake keys only`, async () => {
    const { servers } = await loadServersFile(REGISTRY);
    expect(registryProblems(servers)).toEqual([]);
  });

  it('declares not-applicable servers with the words their failure prints', async () => {
    const { servers } = await loadServersFile(REGISTRY);
    const declared = servers.filter((server) => server.notApplicable !== undefined);
    expect(declared.length).toBeGreaterThan(0);
    for (const { notApplicable } of declared) expect(notApplicable?.expect.trim()).not.toBe('');
  });
});

describe('the registry checks', () => {
  let scratch = '';
  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'mcpctx-registry-'));
  });
  afterAll(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  it('name each way an entry can break the rules', async () => {
    const file = join(scratch, 'bad.yaml');
    await writeFile(
      file,
      [
        '- { name: ranged, command: npx, args: [-y, "@scope/pkg@^1.2.3"] }',
        '- { name: latest, command: npx, args: [-y, "pkg@latest"] }',
        '- { name: unpinned, command: npx, args: [-y, "pkg"] }',
        '- { name: no-yes, command: npx, args: ["other@1.0.0"] }',
        '- { name: node, command: node, args: [-y, "third@1.0.0"] }',
        '- { name: again, command: npx, args: [-y, "third@2.0.0"] }',
        '- { name: Loud_Name, command: npx, args: [-y, "fourth@1.0.0"] }',
        '- { name: real-env, command: npx, args: [-y, "fifth@1.0.0"], env: { GITHUB_TOKEN: ghp_abcdefghijklmnopqrstuvwxyz0123456789 } }',
        '- { name: plain-env, command: npx, args: [-y, "sixth@1.0.0"], env: { API_KEY: abc123 } }',
        '- { name: real-arg, command: npx, args: [-y, "seventh@1.0.0", --api-key, abc123] }',
      ].join('\n'),
    );
    const { servers } = await loadServersFile(file);
    expect(registryProblems(servers)).toEqual([
      `${servers.length} servers, fewer than ${MIN_SERVERS}`,
      'ranged: package @scope/pkg@^1.2.3 is not pinned to an exact version',
      'latest: package pkg@latest is not pinned to an exact version',
      'unpinned: package pkg is not pinned to an exact version',
      'no-yes: first argument other@1.0.0, not -y',
      'no-yes: package undefined is not pinned to an exact version',
      'node: command node, not npx',
      'again: package third already measured as node',
      'Loud_Name: not a short lower-case name',
      'real-env: env GITHUB_TOKEN has the shape of a real token',
      'real-env: env GITHUB_TOKEN is a credential whose value is not visibly fake',
      'plain-env: env API_KEY is a credential whose value is not visibly fake',
      'real-arg: argument value abc123 looks like a real credential',
    ]);
  });
});
