import { describe, expect, it } from 'vitest';
import { CLAUDE_CODE_POSTURE_SOURCES, DEFERRAL_RECORDS, NO_RECORD, type RecordSource } from '../../src/audit/_vendor-records.js';

/**
 * A vendor record is a first-party statement: each source must sit on a surface the client's
 * vendor controls (its own site, or its own organisation's repositories), carry a date, and say
 * when this project read it. A mirror or a third-party write-up fails here.
 */
const VENDOR_SURFACES: Record<string, readonly RegExp[]> = {
  cursor: [/^https:\/\/cursor\.com\//],
  'codex-cli': [/^https:\/\/github\.com\/openai\//, /^https:\/\/developers\.openai\.com\//],
  vscode: [/^https:\/\/code\.visualstudio\.com\//, /^https:\/\/github\.com\/microsoft\//],
  'claude-code': [/^https:\/\/code\.claude\.com\//, /^https:\/\/github\.com\/anthropics\//, /^https:\/\/docs\.anthropic\.com\//],
};

const ISO_DAY = /^\d{4}-\d{2}-\d{2}$/;

function expectVendorSource(client: string, source: RecordSource): void {
  const surfaces = VENDOR_SURFACES[client];
  expect(surfaces, `no vendor surfaces listed for ${client}`).toBeDefined();
  expect(surfaces?.some((surface) => surface.test(source.address)), `${client}: ${source.address} is not a surface its vendor controls`).toBe(true);
  expect(source.read).toMatch(ISO_DAY);
  expect(source.dated).toMatch(/^\d{4}-\d{2}(-\d{2})?$|^undated$/);
  expect(source.title.length).toBeGreaterThan(0);
}

describe('vendor records', () => {
  it('cite only sources the vendor controls, each with its address, its date and the date it was read', () => {
    for (const record of DEFERRAL_RECORDS) {
      expect(record.sources.length).toBeGreaterThan(0);
      for (const source of record.sources) expectVendorSource(record.client, source);
    }
    for (const source of CLAUDE_CODE_POSTURE_SOURCES) expectVendorSource('claude-code', source);
  });

  it('say what Codex does by default since openai/codex#29486, not the feature flag it retired', () => {
    const codex = DEFERRAL_RECORDS.find((record) => record.client === 'codex-cli');
    expect(codex?.sources.map((source) => source.address)).toContain('https://github.com/openai/codex/pull/29486');
    expect(codex?.states).toMatch(/by default/);
    expect(codex?.conditions.join(' ')).toMatch(/model and the provider support tool_search/);
  });

  it('name the setting VS Code reads today (virtualTools.threshold), which replaced virtualTools.enabled', () => {
    const vscode = DEFERRAL_RECORDS.find((record) => record.client === 'vscode');
    expect(vscode?.states).toMatch(/github\.copilot\.chat\.virtualTools\.threshold/);
    expect(vscode?.sources.map((source) => source.address)).toContain('https://github.com/microsoft/vscode-copilot-chat/pull/396');
  });

  it('keep each client in one list only', () => {
    const recorded = DEFERRAL_RECORDS.map((record) => record.client);
    const none = NO_RECORD.map((entry) => entry.client);
    expect(recorded.filter((client) => none.includes(client))).toEqual([]);
    expect(new Set([...recorded, ...none]).size).toBe(recorded.length + none.length);
  });
});
