import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { McpctxError } from '../../errors/index.js';
import type { LaunchSpec } from '../../mcp/index.js';
import type { ContainerIsolation, DockerNetwork } from '../../measure/index.js';

export const DEFAULT_DOCKER_IMAGE = 'node:20';
export const DOCKER_NETWORKS: readonly DockerNetwork[] = ['bridge', 'host', 'none'];

/**
 * Limits that fit a CI runner (ubuntu-latest: 4 cores, 16 GB) at the default concurrency of two:
 * an `npx -y` install plus a server, never the whole machine. `bridge` reaches the npm registry
 * but not the host's loopback, where other servers of the sweep may listen.
 */
export const DEFAULT_CONTAINER: ContainerIsolation = { image: DEFAULT_DOCKER_IMAGE, network: 'bridge', memory: '2g', cpus: '2', pids: 512, npmCache: null };

/** Bounds a limit may take: below them a server cannot start (docker's own floor is 6 MB), above them a typo. */
const MIN_MEMORY_BYTES = 64 * 1024 ** 2;
const MAX_MEMORY_BYTES = 1024 ** 4;
const MAX_CPUS = 256;
const MIN_PIDS = 16;
const MAX_PIDS = 4_194_304;
const UNIT_BYTES: Record<string, number> = { k: 1024, m: 1024 ** 2, g: 1024 ** 3 };

/**
 * The container settings a sweep runs with: the defaults, overridden by what is given, each
 * checked. A bad value is a usage error naming the option and what it takes.
 */
export function containerSettings(given: Partial<ContainerIsolation> = {}): ContainerIsolation {
  const settings = { ...DEFAULT_CONTAINER, ...definedOnly(given) };
  const { image, network, memory, cpus, pids, npmCache } = settings;
  if (typeof image !== 'string' || image.trim() === '' || image.startsWith('-')) throw usage(`--docker-image must name an image, got ${JSON.stringify(image)}`);
  if (!DOCKER_NETWORKS.includes(network)) throw usage(`--docker-network must be one of ${DOCKER_NETWORKS.join(', ')}, got ${JSON.stringify(network)}`);
  const memoryMatch = /^([1-9]\d{0,6})([kmg])$/.exec(typeof memory === 'string' ? memory : '');
  const bytes = memoryMatch === null ? Number.NaN : Number(memoryMatch[1]) * (UNIT_BYTES[memoryMatch[2] as string] ?? Number.NaN);
  if (!(bytes >= MIN_MEMORY_BYTES && bytes <= MAX_MEMORY_BYTES)) {
    throw usage(`--docker-memory must be a whole number with a unit k, m or g, from 64m to 1024g (e.g. 2g), got ${JSON.stringify(memory)}`);
  }
  const cpuCount = /^\d{1,3}(\.\d{1,2})?$/.test(typeof cpus === 'string' ? cpus : '') ? Number(cpus) : Number.NaN;
  if (!(cpuCount > 0 && cpuCount <= MAX_CPUS)) throw usage(`--docker-cpus must be a number of cores above 0 and at most ${MAX_CPUS} (e.g. 1.5), got ${JSON.stringify(cpus)}`);
  if (!Number.isSafeInteger(pids) || pids < MIN_PIDS || pids > MAX_PIDS) throw usage(`--docker-pids must be a whole number from ${MIN_PIDS} to ${MAX_PIDS}, got ${JSON.stringify(pids)}`);
  // A volume name only: a host path (it would have a slash) would let a server read or write the host.
  if (npmCache !== null && !(typeof npmCache === 'string' && /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/.test(npmCache))) {
    throw usage(`--docker-npm-cache must name a docker volume (letters, digits, _ . -; no path), got ${JSON.stringify(npmCache)}`);
  }
  return { image, network, memory, cpus, pids, npmCache };
}

/**
 * A stdio launch run inside a throwaway container with the given limits: `docker run --rm -i
 * --network N --memory M --memory-swap M --cpus C --pids-limit P <image> <command> <args>`.
 * `--memory-swap` equal to `--memory` means no swap, so the memory limit is the one that holds.
 * With an npm cache volume, `-v VOLUME:/root/.npm` lets a package installed once start warm in
 * the next container (each capture is a new container).
 * Variables go by name only (`-e NAME`): docker reads each value from its own environment, which
 * the launch still carries, so no value ever appears in an argv (ps, the record). A remote entry
 * (a URL, no command) is never wrapped.
 */
export function dockerLaunch<Launch extends object>(launch: Launch, container: ContainerIsolation = DEFAULT_CONTAINER): Launch {
  if (!('command' in launch)) return launch;
  const stdio = launch as Launch & LaunchSpec;
  const envFlags = Object.keys(stdio.env ?? {})
    .sort()
    .flatMap((name) => ['-e', name]);
  const limits = ['--network', container.network, '--memory', container.memory, '--memory-swap', container.memory, '--cpus', container.cpus, '--pids-limit', String(container.pids)];
  const cache = container.npmCache === null ? [] : ['-v', `${container.npmCache}:/root/.npm`];
  return { ...stdio, command: 'docker', args: ['run', '--rm', '-i', ...limits, ...cache, ...envFlags, container.image, stdio.command, ...(stdio.args ?? [])] };
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

function definedOnly(given: Partial<ContainerIsolation>): Partial<ContainerIsolation> {
  return Object.fromEntries(Object.entries(given).filter(([, value]) => value !== undefined)) as Partial<ContainerIsolation>;
}

function usage(message: string): McpctxError {
  return new McpctxError('USAGE', message);
}
