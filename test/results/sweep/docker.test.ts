import { describe, expect, it } from 'vitest';
import { DEFAULT_CONTAINER, containerSettings, dockerLaunch } from '../../../src/results/sweep/index.js';

// Only the argv is checked: there is no docker daemon here, and tests never start containers.
describe('dockerLaunch', () => {
  const launch = { command: 'npx', args: ['-y', 'pkg'], env: { TOKEN: 's3cr3t-value', A_KEY: 'v' }, cwd: '/tmp' };

  it('wraps a stdio launch with the default limits on a bridge network, passing env by name only', () => {
    const wrapped = dockerLaunch(launch);
    expect(wrapped.command).toBe('docker');
    expect(wrapped.args).toEqual([
      'run', '--rm', '-i',
      '--network', 'bridge', '--memory', '2g', '--memory-swap', '2g', '--cpus', '2', '--pids-limit', '512',
      '-e', 'A_KEY', '-e', 'TOKEN',
      'node:20', 'npx', '-y', 'pkg',
    ]);
    expect(JSON.stringify(wrapped.args)).not.toContain('s3cr3t');
    expect(wrapped.env).toEqual({ TOKEN: 's3cr3t-value', A_KEY: 'v' });
  });

  it.each(['bridge', 'host', 'none'] as const)('puts network %s and the given limits in the argv', (network) => {
    const container = containerSettings({ network, memory: '512m', cpus: '1.5', pids: 64, image: 'node:22-slim' });
    const args = dockerLaunch(launch, container).args;
    expect(args.slice(0, 13)).toEqual(['run', '--rm', '-i', '--network', network, '--memory', '512m', '--memory-swap', '512m', '--cpus', '1.5', '--pids-limit', '64']);
    expect(args.slice(-4)).toEqual(['node:22-slim', 'npx', '-y', 'pkg']);
  });

  it('mounts a named npm cache volume when given, and refuses a host path there', () => {
    const args = dockerLaunch(launch, containerSettings({ npmCache: 'mcpctx-npm' })).args;
    expect(args.slice(13, 15)).toEqual(['-v', 'mcpctx-npm:/root/.npm']);
    expect(args.slice(15, 19)).toEqual(['-e', 'A_KEY', '-e', 'TOKEN']);
    for (const bad of ['/home/me/.npm', '../cache', 'a:b', '', '-v']) expect(() => containerSettings({ npmCache: bad })).toThrow(/--docker-npm-cache must name a docker volume/);
  });

  it('never wraps a remote launch', () => {
    const remote = { url: 'https://example.com/mcp', headers: { Authorization: 'Bearer x' } };
    expect(dockerLaunch(remote)).toBe(remote);
  });
});

describe('containerSettings', () => {
  it('fills what is not given from the defaults', () => {
    expect(containerSettings()).toEqual(DEFAULT_CONTAINER);
    expect(containerSettings({ network: 'none', memory: undefined })).toEqual({ ...DEFAULT_CONTAINER, network: 'none' });
  });

  it.each([
    [{ network: 'default' }, /--docker-network must be one of bridge, host, none, got "default"/],
    [{ network: 'container:other' }, /--docker-network/],
    [{ memory: '2' }, /--docker-memory must be a whole number with a unit k, m or g/],
    [{ memory: '2G' }, /--docker-memory/],
    [{ memory: '1m' }, /--docker-memory.*from 64m/],
    [{ memory: '2048g' }, /--docker-memory/],
    [{ memory: '-1g' }, /--docker-memory/],
    [{ cpus: '0' }, /--docker-cpus must be a number of cores above 0/],
    [{ cpus: 'two' }, /--docker-cpus/],
    [{ cpus: '300' }, /--docker-cpus/],
    [{ pids: 4 }, /--docker-pids must be a whole number from 16/],
    [{ pids: 1.5 }, /--docker-pids/],
    [{ image: '' }, /--docker-image must name an image/],
    [{ image: '--privileged' }, /--docker-image/],
  ] as const)('refuses %j with a usage error naming the option', (given, message) => {
    expect(() => containerSettings(given as never)).toThrow(message);
    try {
      containerSettings(given as never);
    } catch (error) {
      expect((error as { code?: string }).code).toBe('USAGE');
    }
  });
});
