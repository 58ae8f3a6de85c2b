// The pin file is updated under a lock (issue 30, item 8): two gateway processes with different
// upstreams on one pin file and a CLI approval, started together, lose nothing, round after round
// (without the lock one gateway's first-contact pins were lost, so its upstream was trusted on
// first use a second time). A crashed holder's lock is taken over once stale; a live one makes a
// gateway hold the tools back after a bounded wait, never trust them.
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import lockfile from 'proper-lockfile';
import { afterAll, describe, expect, it } from 'vitest';
import { PinStore, checkCatalog, emptyPinFile, markShown, readPinFile, toolFingerprint, writePinFile } from '../../src/gateway/trust/index.js';
import { markedEnv, waitForNoMarkedProcesses } from '../support/processes.js';
import { CLI, gatewayOverStdio, markEnvEntries, tempDir } from './_gateway-process.js';

const CATALOG_SERVER = fileURLToPath(new URL('../servers/catalog-server.mjs', import.meta.url));
const tool = (name: string) => ({ name, description: `The ${name} tool.`, inputSchema: { type: 'object' } });

afterAll(async () => {
  expect(await waitForNoMarkedProcesses(15_000)).toEqual([]);
});

/** A gateway config with one catalog-server upstream `name` offering `tools`, pinning to `pins`. */
function gatewayConfig(dir: string, name: string, tools: unknown[], pins: string): string {
  const catalog = join(dir, `${name}.catalog.json`);
  writeFileSync(catalog, JSON.stringify(tools));
  writeFileSync(join(dir, `${name}.calls.log`), '');
  const server = { command: process.execPath, args: [CATALOG_SERVER], env: { ...markEnvEntries(), CATALOG_FILE: catalog, CALL_LOG: join(dir, `${name}.calls.log`) } };
  const config = join(dir, `${name}.gateway.json`);
  writeFileSync(config, JSON.stringify({ mcpServers: { [name]: server }, pin: { file: pins } }));
  return config;
}

function runCli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env: markedEnv({ PATH: process.env.PATH ?? '' }), timeout: 15_000 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : null, stdout, stderr });
    });
  });
}

describe('the pin file lock, across processes', () => {
  it('two gateways with different upstreams and a CLI approval on one pin file, all at once: every first-contact pin and the approval are kept', async () => {
    const ROUNDS = 4;
    for (let round = 0; round < ROUNDS; round += 1) {
      const dir = tempDir('mcpctx-pins-lock-');
      const pins = join(dir, 'pins.json');
      // Upstream c has a definition pending, listed, that the CLI approves by its hash.
      const pending = tool('c_tool');
      const seeded = checkCatalog(checkCatalog(emptyPinFile(), 'c', [], 'tofu', 'day 1').next, 'c', [pending], 'tofu', 'day 2').next;
      await writePinFile(pins, markShown(seeded, 'day 2'));
      const gateways = [
        gatewayOverStdio(['--config', gatewayConfig(dir, 'a', [tool('a_one'), tool('a_two')], pins)]),
        gatewayOverStdio(['--config', gatewayConfig(dir, 'b', [tool('b_one'), tool('b_two')], pins)]),
      ];
      try {
        await Promise.all(gateways.map((gateway) => gateway.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } }, 15_000)));
        // The three read-modify-writes start together: both catalog checks and the approval.
        const [listA, listB, approval] = await Promise.all([
          gateways[0]!.request('tools/list', {}, 15_000),
          gateways[1]!.request('tools/list', {}, 15_000),
          runCli(['gateway', 'pins', pins, '--approve', `c/c_tool@${toolFingerprint(pending).sha256.slice(0, 12)}`]),
        ]);
        expect(approval.code, approval.stderr).toBe(0);
        expect((listA.result as { tools: unknown[] }).tools).toHaveLength(2);
        expect((listB.result as { tools: unknown[] }).tools).toHaveLength(2);
      } finally {
        await Promise.all(gateways.map((gateway) => gateway.close()));
      }
      const read = await readPinFile(pins);
      if (read.status !== 'read') throw new Error(`round ${round}: ${read.status}`);
      const pinned = Object.fromEntries(Object.entries(read.pins.upstreams).map(([name, entry]) => [name, Object.keys(entry.tools).sort()]));
      expect(pinned, `round ${round}`).toEqual({ c: ['c_tool'], a: ['a_one', 'a_two'], b: ['b_one', 'b_two'] });
    }
  }, 60_000);
});

describe('a lock that is held', () => {
  it('a lock left by a crashed holder (its mtime stopped) is taken over at once, and the check goes through', async () => {
    const dir = tempDir('mcpctx-pins-stale-');
    const file = join(dir, 'pins.json');
    mkdirSync(`${file}.lock`);
    const minuteAgo = new Date(Date.now() - 60_000);
    utimesSync(`${file}.lock`, minuteAgo, minuteAgo);
    const logged: string[] = [];
    const started = Date.now();
    const checked = await new PinStore({ file, mode: 'tofu', lockWaitMs: 2_000 }, (line) => logged.push(line)).filter('gh', [tool('one')]);
    expect(checked.trusted).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(Object.keys(JSON.parse(readFileSync(file, 'utf8')).upstreams)).toEqual(['gh']);
  });

  it('a live holder makes the gateway hold every tool back after its bounded wait, with a log line naming the lock; nothing is trusted or written', async () => {
    const dir = tempDir('mcpctx-pins-held-');
    const file = join(dir, 'pins.json');
    const release = await lockfile.lock(file, { realpath: false, stale: 5_000 });
    try {
      const logged: string[] = [];
      const checked = await new PinStore({ file, mode: 'tofu', lockWaitMs: 400 }, (line) => logged.push(line)).filter('gh', [tool('one'), tool('two')]);
      expect(checked.trusted).toEqual([]);
      expect([...checked.held.keys()]).toEqual(['one', 'two']);
      expect(checked.held.get('one')).toMatch(/could not use the pin file .*Cannot lock the pin file/);
      expect(logged.join('\n')).toMatch(/pins: Cannot lock the pin file .*pins\.json within 400 ms.* every tool of gh is held back/);
      expect((await readPinFile(file)).status).toBe('absent');
    } finally {
      await release();
    }
  });
});
