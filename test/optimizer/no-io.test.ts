import { afterEach, describe, expect, it, vi } from 'vitest';

// Every way the core could write or reach the network throws: the optimizer must not need any.
function forbidden(name: string): () => never {
  return () => {
    throw new Error(`the optimizer core called ${name}`);
  };
}
const WRITES = ['writeFile', 'writeFileSync', 'appendFile', 'appendFileSync', 'createWriteStream', 'mkdir', 'mkdirSync', 'open', 'openSync', 'rm', 'rmSync', 'unlink', 'unlinkSync', 'rename', 'renameSync', 'readFile', 'readFileSync'];
vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<Record<string, unknown>>();
  const stubbed: Record<string, unknown> = { ...real };
  for (const name of WRITES) stubbed[name] = forbidden(`fs.${name}`);
  return { ...stubbed, default: stubbed };
});
vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<Record<string, unknown>>();
  const stubbed: Record<string, unknown> = { ...real };
  for (const name of ['writeFile', 'appendFile', 'mkdir', 'open', 'rm', 'unlink', 'rename', 'readFile']) stubbed[name] = forbidden(`fs/promises.${name}`);
  return { ...stubbed, default: stubbed };
});

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('the optimizer core does no I/O', () => {
  it('builds and searches with fetch and the fs read/write functions throwing', async () => {
    vi.stubGlobal('fetch', forbidden('fetch'));
    const { ContextOptimizer } = await import('../../src/optimizer/index.js');
    const optimizer = new ContextOptimizer();
    const input = {
      task: 'fix the failing parser test',
      messages: [{ role: 'user' as const, text: 'The parser must keep comments.' }],
      toolOutputs: [{ command: 'npm test', output: 'FAIL test/parser.test.ts\nError: comment dropped', exitCode: 1 }],
      decisions: [{ text: 'Use the streaming tokenizer.', status: 'accepted' as const }],
    };
    const result = optimizer.buildContext(input);
    expect(result.context).toContain('Error: comment dropped');
    const { task: _task, ...records } = input;
    expect(optimizer.search(records, 'parser', 5).length).toBeGreaterThan(0);
    const fs = await import('node:fs');
    expect(() => fs.writeFileSync('/tmp/x', 'y')).toThrow(/optimizer core called fs.writeFileSync/);
  });
});
