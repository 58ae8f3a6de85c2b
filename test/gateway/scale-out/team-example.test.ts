// The team example (examples/gateway-team/) is what the docs page tells a team to run, and the
// machine the tests run on has no Docker: what can be checked here is. haproxy accepts its config,
// whose routing directives are the ones the scale-out tests run haproxy with; every flag a gateway
// service passes exists, each variable a flag names is given to the service; the config is valid.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runCliCaptured } from '../../support/cli-run.js';
import { HAPROXY_MISSING, haproxyConfig, haproxyPath } from '../../support/haproxy.js';
import { PROJECT_ROOT } from '../../support/real-servers.js';

const EXAMPLE = join(PROJECT_ROOT, 'examples/gateway-team');
const ROUTING = /^\s*(balance|stick|stick-table|option|retries)\b/;

function routingLines(config: string): string[] {
  return config
    .split('\n')
    .filter((line) => ROUTING.test(line))
    .map((line) => line.trim())
    .sort();
}

describe('examples/gateway-team', () => {
  it.skipIf(haproxyPath() === undefined)(`haproxy accepts haproxy.cfg${haproxyPath() === undefined ? ` (skipped: ${HAPROXY_MISSING})` : ''}`, () => {
    // -c checks the file; the gateway names do not resolve here, which init-addr none allows.
    expect(() => execFileSync(haproxyPath() as string, ['-c', '-f', join(EXAMPLE, 'haproxy.cfg')], { stdio: 'pipe' })).not.toThrow();
  });

  it('routes as the tests route: the same stick table, redispatch and retries', () => {
    expect(routingLines(readFileSync(join(EXAMPLE, 'haproxy.cfg'), 'utf8'))).toEqual(routingLines(haproxyConfig(8808, [1, 2])));
  });

  it('passes only flags the gateway has, and gives each service every variable its flags name', async () => {
    const help = (await runCliCaptured(['gateway', '--help'])).stdout;
    const compose = parse(readFileSync(join(EXAMPLE, 'compose.yaml'), 'utf8')) as { services: Record<string, { command?: unknown; environment?: Record<string, string> }> };
    const gateways = Object.entries(compose.services).filter(([name]) => name.startsWith('gateway-'));
    expect(gateways).toHaveLength(3);
    for (const [name, service] of gateways) {
      const command = service.command as string[];
      expect(command.slice(0, 3), name).toEqual(['node', 'dist/cli/main.js', 'gateway']);
      for (const flag of command.filter((word) => word.startsWith('--'))) expect(help, `${name}: ${flag}`).toContain(`${flag} `);
      for (const flag of ['--key-env', '--token-env', '--state-env']) {
        const variable = command[command.indexOf(flag) + 1] as string;
        expect(Object.keys(service.environment ?? {}), `${name}: ${flag} ${variable}`).toContain(variable);
      }
      const config = command[command.indexOf('--config') + 1] as string;
      const checked = await runCliCaptured(['gateway', 'check', config, '--offline'], PROJECT_ROOT);
      expect(checked.code, checked.stderr).toBe(0);
    }
  });
});
