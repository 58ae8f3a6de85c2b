// An upstream's initialize answer cannot write onto Object.prototype through the gateway's merge
// of several upstreams' capabilities (issue: prototype pollution past the pins). The gateway runs
// in this process, so a polluted prototype would show here, in every object.
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { waitForNoMarkedProcesses } from '../support/processes.js';
import { markEnvEntries, relayEntry, writeConfig } from './_gateway-process.js';
import { withInProcessGateway } from './_in-process.js';

const PROTO_SERVER = fileURLToPath(new URL('../servers/proto-capabilities.mjs', import.meta.url));

afterAll(async () => {
  expect(await waitForNoMarkedProcesses(15_000)).toEqual([]);
});

describe('capabilities merged from several upstreams', () => {
  it('keep "__proto__" and "constructor" as the upstream sent them, as data, and touch no prototype', async () => {
    const config = writeConfig({
      mcpServers: { one: relayEntry('one'), proto: { command: process.execPath, args: [PROTO_SERVER], env: markEnvEntries() } },
    });
    await withInProcessGateway({ config }, async (gateway) => {
      const answer = await gateway.initialize();
      const probe: Record<string, unknown> = {};
      expect(probe.polluted).toBeUndefined();
      expect(probe.polluted3).toBeUndefined();
      expect((Object.prototype as Record<string, unknown>).polluted).toBeUndefined();
      expect(({}.constructor as unknown as { prototype: Record<string, unknown> }).prototype.polluted2).toBeUndefined();
      const capabilities = (answer.result as { capabilities: Record<string, unknown> }).capabilities;
      // Relayed as data: own keys of the merged object, exactly as the upstream sent them.
      expect(Object.hasOwn(capabilities, '__proto__')).toBe(true);
      expect(Object.getOwnPropertyDescriptor(capabilities, '__proto__')?.value).toEqual({ polluted: 'by-capabilities', tools: { poisoned: true } });
      expect(Object.getPrototypeOf(capabilities)).toBe(Object.prototype);
      // The gateway's own capability is still what it says, not the prototype's.
      expect(capabilities.tools).toEqual({ listChanged: true });
      const listed = await gateway.request('tools/list');
      const names = ((listed.result as { tools: Array<{ name: string }> }).tools ?? []).map((tool) => tool.name);
      expect(names).toContain('proto__exfil');
    });
  }, 60_000);
});
