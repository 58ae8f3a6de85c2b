import type { SiteLaunch } from './_check.js';

// Which npm package a launch runs, read from the recorded command (`npx -y <pkg>@<version> ...`).
// Only a launch through npx names a package; anything else (a path, node, docker, a URL) has none,
// and a name npm would not accept is not linked.

export interface NpmPackage {
  name: string;
  /** As written after `@`: an exact version, a tag or a range; null when the launch names none. */
  version: string | null;
  /** True for an exact version (`1.2.3`, `2.0.0-rc.1`): the launch is pinned. */
  pinned: boolean;
  /** The package's npm page, at the version when it is exact. */
  url: string;
}

const NPX = /(^|[\\/])npx(\.cmd)?$/;
/** npm's rule for new package names: lower case, URL-safe, an optional scope. */
const NAME = /^(?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/;
const EXACT_VERSION = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;
/** npx options that take no value; any other option makes the launch unreadable here. */
const FLAGS = new Set(['-y', '--yes', '-q', '--quiet', '--no-install', '--prefer-offline', '--prefer-online']);

export function npmPackageOf(launch: SiteLaunch): NpmPackage | null {
  if (launch.kind !== 'stdio' || !NPX.test(launch.command)) return null;
  let spec: string | undefined;
  for (let index = 0; index < launch.args.length && spec === undefined; index += 1) {
    const arg = launch.args[index] as string;
    if (arg.startsWith('--package=')) spec = arg.slice('--package='.length);
    else if (arg === '-p' || arg === '--package') spec = launch.args[index + 1];
    else if (!arg.startsWith('-')) spec = arg;
    else if (!FLAGS.has(arg)) return null;
  }
  return spec === undefined ? null : parseSpec(spec);
}

function parseSpec(spec: string): NpmPackage | null {
  const at = spec.indexOf('@', spec.startsWith('@') ? 1 : 0);
  const name = at === -1 ? spec : spec.slice(0, at);
  const version = at === -1 ? null : spec.slice(at + 1);
  if (!NAME.test(name) || name.length > 214 || version === '') return null;
  const pinned = version !== null && EXACT_VERSION.test(version);
  const url = `https://www.npmjs.com/package/${name}${pinned ? `/v/${version}` : ''}`;
  return { name, version, pinned, url };
}
