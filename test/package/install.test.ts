// The package as a stranger gets it: `npm pack` here, `npm install` of the tarball into an empty
// folder, then `npx mcpctx` from that folder. No package named mcpctx is ours on npm, so this is the
// only install a user can do today, and the only proof that `bin`, `files` and the dependencies
// make a working command outside this clone.
//
// Offline, and unable to fetch: npm and npx run with npm_config_offline=true, so a broken install
// fails with npm's own message (ENOTCACHED) instead of quietly downloading someone's `mcpctx`.
// npm 11 builds a tree without a lockfile from full packuments, which `npm ci` never caches (it
// reads the lockfile), so the empty folder gets a lockfile cut from ours: the packages `npm ci`
// installed for production, at the versions this suite runs against, whose tarballs are in the
// cache. A user without it gets the newest versions in range instead.
//
// Install scripts: npm 11.19 runs a dependency's install script unless the installing project's
// allowScripts denies it (it only warns that the script was not reviewed), so a user's `npm i`
// builds better-sqlite3: a download from GitHub, else a compile that took a minute here.
// --ignore-scripts keeps this test offline and fast whatever the machine's npm config says, and
// proves that the commands below work without that addon.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join, sep } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { markFlags } from '../support/cli-run.js';
import { markedEnv, waitForNoMarkedProcesses } from '../support/processes.js';
import { PROJECT_ROOT } from '../support/real-servers.js';

const PACK_BUDGET_MS = 60_000;
// 5 to 20 s measured on a loaded 2-core machine; generous, but bounded.
const INSTALL_BUDGET_MS = 180_000;
const RUN_BUDGET_MS = 60_000;
const OUTPUT_LIMIT = 4 * 1024 * 1024;

const SERVER_MEMORY = join(PROJECT_ROOT, 'node_modules/@modelcontextprotocol/server-memory/dist/index.js');

interface Manifest {
  name: string;
  version: string;
  license: string;
  files: string[];
  bin: Record<string, string>;
  exports: Record<string, string | Record<string, string>>;
  engines: Record<string, string>;
  dependencies: Record<string, string>;
}

interface PackReport {
  filename: string;
  integrity: string;
  files: Array<{ path: string; mode: number }>;
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * The environment of every npm and npx run: what `npm test` exported is dropped (its
 * npm_config_local_prefix names this clone, and its PATH holds this clone's node_modules/.bin), the
 * cache it used is kept, and nothing may be fetched or asked.
 */
function npmEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value === undefined || name === 'INIT_CWD' || (/^npm_/i.test(name) && name !== 'npm_config_cache')) continue;
    env[name] = value;
  }
  env.PATH = (process.env.PATH ?? '')
    .split(delimiter)
    .filter((dir) => !dir.includes(`node_modules${sep}.bin`))
    .join(delimiter);
  return { ...env, ...markedEnv(), npm_config_offline: 'true', npm_config_yes: 'false', npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' };
}

/** Runs a command in its own process group; past `timeoutMs` the whole group is killed and the run rejects with its output. */
function run(command: string, args: readonly string[], cwd: string, timeoutMs: number): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: npmEnv(), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const result: Run = { code: null, stdout: '', stderr: '' };
    const killGroup = (): void => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // the group is gone
      }
    };
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, timeoutMs);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (result.stdout = (result.stdout + chunk).slice(-OUTPUT_LIMIT)));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (result.stderr = (result.stderr + chunk).slice(-OUTPUT_LIMIT)));
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      killGroup(); // anything it started and left behind goes with it
      result.code = code;
      if (timedOut) reject(new Error(`${command} ${args.join(' ')} ran past ${timeoutMs} ms and was killed\nstdout: ${result.stdout.slice(-2000)}\nstderr: ${result.stderr.slice(-2000)}`));
      else resolve(result);
    });
  });
}

/** Fails with the command's own output when it did not exit 0. */
function succeeded(result: Run, what: string): Run {
  if (result.code !== 0) throw new Error(`${what} exited ${result.code}\nstdout: ${result.stdout.slice(-4000)}\nstderr: ${result.stderr.slice(-4000)}`);
  return result;
}

/** The user folder's lockfile: our production packages (tarballs the npm cache holds) under the packed mcpctx. */
async function userLockfile(manifest: Manifest, pack: PackReport, tarballSpec: string): Promise<object> {
  const lock = JSON.parse(await readFile(join(PROJECT_ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean }> };
  const packages: Record<string, object> = {
    '': { name: 'user-project', version: '1.0.0', dependencies: { mcpctx: tarballSpec } },
    'node_modules/mcpctx': {
      version: manifest.version,
      resolved: tarballSpec,
      integrity: pack.integrity,
      license: manifest.license,
      dependencies: manifest.dependencies,
      bin: manifest.bin,
      engines: manifest.engines,
    },
  };
  // Our dependencies sit at the same node_modules paths under the user's folder as under ours.
  for (const [path, entry] of Object.entries(lock.packages)) if (path !== '' && entry.dev !== true) packages[path] = entry;
  return { name: 'user-project', version: '1.0.0', lockfileVersion: 3, requires: true, packages };
}

/** Whether a package.json `files` entry (a path, a folder, or a name with `*` in its last segment) holds `path`. */
function filesEntryHolds(entry: string, path: string): boolean {
  if (!entry.includes('*')) return path === entry || path.startsWith(`${entry}/`);
  const pattern = new RegExp(`^${entry.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^/]*')}$`);
  return pattern.test(path);
}

describe('the packed tarball, installed into an empty folder', () => {
  let scratch = '';
  let user = '';
  let manifest: Manifest;
  let pack: PackReport;
  let installed: Run;

  beforeAll(async () => {
    if (!existsSync(join(PROJECT_ROOT, 'dist/cli/main.js'))) {
      throw new Error('dist/cli/main.js is missing: build first (npm run build; npm test builds before it runs the tests)');
    }
    manifest = JSON.parse(await readFile(join(PROJECT_ROOT, 'package.json'), 'utf8')) as Manifest;
    scratch = await mkdtemp(join(tmpdir(), 'mcpctx-install-'));
    const packDir = join(scratch, 'pack');
    user = join(scratch, 'user');
    await mkdir(packDir);
    await mkdir(user);
    await mkdir(join(scratch, 'data'));

    // --ignore-scripts: `prepare` would rebuild dist/ in the middle of a test run.
    const packed = succeeded(await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', packDir], PROJECT_ROOT, PACK_BUDGET_MS), 'npm pack');
    pack = (JSON.parse(packed.stdout) as PackReport[])[0] as PackReport;
    const tarballSpec = `file:../pack/${pack.filename}`;

    await writeFile(join(user, 'package.json'), `${JSON.stringify({ name: 'user-project', version: '1.0.0', private: true, dependencies: { mcpctx: tarballSpec } }, null, 2)}\n`);
    await writeFile(join(user, 'package-lock.json'), `${JSON.stringify(await userLockfile(manifest, pack, tarballSpec), null, 2)}\n`);
    installed = succeeded(
      await run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', join(packDir, pack.filename)], user, INSTALL_BUDGET_MS),
      'npm install of the tarball',
    );
  }, PACK_BUDGET_MS + INSTALL_BUDGET_MS + 30_000);

  afterAll(async () => {
    if (scratch !== '') await rm(scratch, { recursive: true, force: true });
  });

  it('holds what a user needs and nothing from the workshop', () => {
    const paths = pack.files.map((file) => file.path);
    const main = pack.files.find((file) => file.path === 'dist/cli/main.js');
    expect(main, 'dist/cli/main.js is not in the tarball').toBeDefined();
    expect((main?.mode ?? 0) & 0o111, 'dist/cli/main.js is not executable').not.toBe(0);
    expect(paths).toContain('README.md');
    expect(paths).toContain('package.json');
    // Every command and entry point package.json promises is a file the tarball holds.
    const targets = [...Object.values(manifest.bin), ...Object.values(manifest.exports).flatMap((target) => (typeof target === 'string' ? [target] : Object.values(target)))];
    for (const target of targets) expect(paths, `package.json names ${target}`).toContain(target.replace(/^\.\//, ''));
    // Only what `files` names (npm adds package.json itself): the docs pages, not the generated leaderboard; no src/, test/, bench/, tools/.
    const outside = paths.filter((path) => path !== 'package.json' && !manifest.files.some((entry) => filesEntryHolds(entry, path)));
    expect(outside).toEqual([]);
    for (const folder of ['src/', 'test/', 'bench/', 'tools/', 'docs/leaderboard/', 'node_modules/']) expect(paths.filter((path) => path.startsWith(folder))).toEqual([]);
    expect(paths).toEqual(expect.arrayContaining(['LICENSE', 'docs/README.md', 'docs/gateway.md', 'docs/examples/session.json']));
    expect(paths.filter((path) => /\.test\.[cm]?[jt]s$/.test(path))).toEqual([]);
  });

  it('installs offline into the empty folder, with the command on its bin path and no native build', async () => {
    expect(installed.stdout).toMatch(/added \d+ packages/);
    const copy = join(user, 'node_modules/mcpctx');
    expect((JSON.parse(await readFile(join(copy, 'package.json'), 'utf8')) as Manifest).version).toBe(manifest.version);
    expect((await stat(join(copy, 'dist/cli/main.js'))).mode & 0o111).not.toBe(0);
    expect((await stat(join(user, 'node_modules/.bin/mcpctx'))).isFile()).toBe(true);
    // No script ran, so better-sqlite3 has no addon: what follows works without it.
    expect(existsSync(join(user, 'node_modules/better-sqlite3/build'))).toBe(false);
  });

  it('answers npx mcpctx --version with the package version', async () => {
    const version = succeeded(await run('npx', ['mcpctx', '--version'], user, RUN_BUDGET_MS), 'npx mcpctx --version');
    expect(version.stdout.trim()).toBe(manifest.version);
  });

  it('names itself npx mcpctx in its help, the words that started it there', async () => {
    const help = succeeded(await run('npx', ['mcpctx', 'measure', '--help'], user, RUN_BUDGET_MS), 'npx mcpctx measure --help');
    expect(help.stdout).toMatch(/^Usage: npx mcpctx measure /);
    expect(help.stdout).toContain('$ npx mcpctx measure -- npx -y @modelcontextprotocol/server-memory');
  });

  it('measures server-memory from there: 9 tools, 2,378 tokens', async () => {
    const args = ['mcpctx', 'measure', '--json', '--env', `MEMORY_FILE_PATH=${join(scratch, 'data', 'memory.jsonl')}`, ...markFlags(), '--', 'node', SERVER_MEMORY];
    const measured = succeeded(await run('npx', args, user, RUN_BUDGET_MS), 'npx mcpctx measure');
    const measurement = JSON.parse(measured.stdout) as { status: string; toolCount: number; totalTokens: number; launch: { command: string; envNames: string[] } };
    expect(measurement).toMatchObject({ status: 'measured', toolCount: 9, totalTokens: 2378 });
    expect(measurement.launch.command).toBe('node');
    expect(measurement.launch.envNames).toContain('MEMORY_FILE_PATH');
  });

  it('leaves no process behind', async () => {
    expect(await waitForNoMarkedProcesses()).toEqual([]);
  });
});
