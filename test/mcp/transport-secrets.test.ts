import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { BoundedStdioTransport } from '../../src/mcp/index.js';

describe('BoundedStdioTransport does not expose env values', () => {
  const canary = 'canary-9f3c2e-value';
  const transport = new BoundedStdioTransport({ command: 'node', args: ['server.js'], env: { API_TOKEN: canary } });

  it('has no readable spec; what it says of its launch is the command and the variable names', () => {
    expect((transport as unknown as Record<string, unknown>).spec).toBeUndefined();
    expect(transport.launched).toEqual({ command: 'node', envNames: ['API_TOKEN'] });
  });

  it('inspecting or serializing it never shows the value', () => {
    expect(inspect(transport, { depth: 10, showHidden: true })).not.toContain(canary);
    expect(JSON.stringify(transport)).not.toContain(canary);
  });
});
