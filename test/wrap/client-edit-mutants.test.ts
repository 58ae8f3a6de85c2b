// Damaged client files (a character cut, doubled or swapped at a random place, 150 per format):
// the editor never throws; it refuses, or its result reads as the intended map with the rest of
// the document unchanged. Seeded, so a failure names the text that broke.
import { describe, expect, it } from 'vitest';
import { editClientText, type ClientEdit, type ClientFileFormat, type WrapClientId } from '../../src/wrap/_client-edit.js';
import { generator, parseAs } from './_client-edit-support.js';

const SOURCES: Array<{ format: ClientFileFormat; client: WrapClientId; serversAt: string[]; text: string }> = [
  {
    format: 'jsonc',
    client: 'vscode',
    serversAt: ['servers'],
    text: '{\n  // workspace\n  "servers": {\n    "a": { "command": "a", "args": ["x"] }, // a\n    /* b */ "b": {\n      "command": "b",\n    },\n    "c": { "url": "https://c" }\n  },\n  "inputs": [],\n}\n',
  },
  {
    format: 'yaml',
    client: 'goose',
    serversAt: ['extensions'],
    text: 'GOOSE_MODE: auto\nextensions:\n  # a\n  a:\n    cmd: a\n    args:\n    - x\n  b:\n    cmd: "b"\n    envs: {}\n\n  c:\n    type: builtin\nother: [1, 2]\n',
  },
  {
    format: 'toml',
    client: 'codex-cli',
    serversAt: ['mcp_servers'],
    text: 'model = "m"\n\n# a\n[mcp_servers.a]\ncommand = "a"\nargs = [\n  "x", # x\n]\n\n[mcp_servers.b]\ncommand = \'b\'\n\n[mcp_servers.b.env]\nK = """v"""\n\n[mcp_servers.c]\nurl = "https://c"\n\n[tui]\nx = 1\n',
  },
];

const NOISE = ['{', '}', '[', ']', ',', ':', '"', "'", '#', '/', '*', '\n', ' ', '=', '-', 'a', '\\', '.', '\r\n', '\t'];

function mutate(text: string, random: () => number): string {
  let out = text;
  const edits = 1 + Math.floor(random() * 3);
  for (let index = 0; index < edits; index++) {
    const at = Math.floor(random() * (out.length + 1));
    const kind = random();
    if (kind < 0.4) out = out.slice(0, at) + out.slice(at + 1);
    else if (kind < 0.8) out = out.slice(0, at) + (NOISE[Math.floor(random() * NOISE.length)] ?? '') + out.slice(at);
    else out = out.slice(0, at) + out.slice(at, at + 5) + out.slice(at);
  }
  return out;
}

describe('damaged client files', () => {
  it.each(SOURCES)('$format: refuses or edits exactly, never throws', ({ format, client, serversAt, text }) => {
    let edited = 0;
    for (let seed = 1; seed <= 150; seed++) {
      const random = generator(seed);
      const damaged = mutate(text, random);
      const edit: ClientEdit = { client, format, serversAt, remove: ['a'], add: { name: 'gw', command: 'c', args: ['x'] } };
      const result = editClientText(damaged, edit);
      if ('refused' in result) {
        expect(typeof result.refused).toBe('string');
        continue;
      }
      edited += 1;
      const context = `seed ${seed}:\n${damaged}\n--- result:\n${result.text}`;
      const before = parseAs(damaged, format) as Record<string, unknown>;
      const after = parseAs(result.text, format) as Record<string, unknown>;
      const key = serversAt[0] as string;
      const oldMap = before[key] as Record<string, unknown>;
      const newMap = after[key] as Record<string, unknown>;
      expect(Object.keys(newMap), context).toEqual([...Object.keys(oldMap).filter((name) => name !== 'a'), 'gw']);
      after[key] = oldMap;
      expect(after, context).toEqual(before);
    }
    // Many damaged files still parse (a space, a doubled comment character): some must be edited.
    expect(edited).toBeGreaterThan(10);
  });
});
