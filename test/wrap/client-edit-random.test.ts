// 200 random JSONC documents (random spacing, indent, comments, trailing commas, line endings,
// one-line and multi-line maps): after the edit the server map parses to exactly the intended
// entries, the rest of the document to what it was, and the text before and after the map is
// the bytes it was. Seeded, so a failure names the document that broke.
import type * as JsoncParser from 'jsonc-parser';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { editClientText } from '../../src/wrap/_client-edit.js';
import { generator, parseAs } from './_client-edit-support.js';

const { findNodeAtLocation, parseTree } = createRequire(import.meta.url)('jsonc-parser') as typeof JsoncParser;

interface Written {
  text: string;
  serversAt: string[];
  names: string[];
  /** No comments and no trailing commas: JSON.parse reads it. */
  strict: boolean;
}

function randomDocument(random: () => number): Written {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const eol = random() < 0.3 ? '\r\n' : '\n';
  const unit = pick(['  ', '    ', '\t', ' ']);
  const multiline = random() < 0.8;
  const trailing = random() < 0.3;
  const commented = random() < 0.6;
  let comments = 0;
  const gap = (depth: number): string => (multiline ? eol + unit.repeat(depth) : pick(['', ' ']));
  const comment = (depth: number): string => {
    if (!commented || random() >= 0.3) return '';
    comments += 1;
    if (multiline && random() < 0.5) return `// note ${comments} "quoted" { , }${eol}${unit.repeat(depth)}`;
    return `/* note ${comments} , } */${pick(['', ' '])}`;
  };
  const sameLine = (): string => {
    if (!commented || !multiline || random() >= 0.2) return '';
    comments += 1;
    return pick([` // after ${comments}`, ` /* after ${comments} */`]);
  };
  const object = (properties: Array<[string, string]>, depth: number): string => {
    if (properties.length === 0) return multiline && random() < 0.5 ? `{${eol}${unit.repeat(depth)}}` : pick(['{}', '{ }']);
    let out = '{';
    properties.forEach(([key, value], index) => {
      const last = index === properties.length - 1;
      out += gap(depth + 1) + comment(depth + 1) + JSON.stringify(key) + pick([': ', ':', ' : ']) + value + (last && !trailing ? '' : ',') + sameLine();
    });
    return `${out}${gap(depth)}}`;
  };
  const stringValue = (): string => JSON.stringify(pick(['npx', 'C:\\tools\\a "b".exe', 'uvx', 'é日本', '/usr/bin/env', 'a\\nb']));
  const server = (depth: number): string => {
    const properties: Array<[string, string]> = [['command', stringValue()]];
    if (random() < 0.7) properties.push(['args', `[${[stringValue(), stringValue()].slice(0, Math.floor(random() * 3)).join(', ')}]`]);
    if (random() < 0.3) properties.push(['env', object([['KEY', stringValue()]], depth + 1)]);
    if (random() < 0.3) properties.push(['disabled', pick(['true', 'false'])]);
    return object(properties, depth);
  };
  const pool = ['a', 'b', 'c', 'memory', 'x y', 'é', 'constructor', 'fs'];
  const names = pool.filter(() => random() < 0.5);
  const nested = random() < 0.4;
  const mapDepth = nested ? 3 : 1;
  const map = object(names.map((name) => [name, server(mapDepth + 1)]), mapDepth);
  const before: Array<[string, string]> = random() < 0.6 ? [['numStartups', '3'], ['theme', '"dark"']] : [];
  const after: Array<[string, string]> = random() < 0.6 ? [['tipsHistory', object([['x', '1']], 1)]] : [];
  const serversAt = nested ? ['projects', '/home/me/app', 'mcpServers'] : ['mcpServers'];
  const holder: [string, string] = nested ? ['projects', object([['/home/me/other', '{}'], ['/home/me/app', object([['allowedTools', '[]'], ['mcpServers', map]], 2)]], 1)] : ['mcpServers', map];
  const text = (commented ? pick(['', `// settings${eol}`, `/* top */ `]) : '') + object([...before, holder, ...after], 0) + pick(['', eol, `${eol}${eol}`]);
  return { text, serversAt, names, strict: !trailing && comments === 0 && text.trimStart().startsWith('{') };
}

describe('random JSONC documents', () => {
  it('edits 200 of them exactly, keeping the text around the map', () => {
    let strictCount = 0;
    for (let seed = 1; seed <= 200; seed++) {
      const random = generator(seed);
      const { text, serversAt, names, strict } = randomDocument(random);
      const remove = names.filter(() => random() < 0.5);
      const addName = random() < 0.2 && remove.length > 0 ? (remove[0] as string) : 'mcpctx-gateway';
      const result = editClientText(text, { client: 'cursor', format: 'jsonc', serversAt, remove, add: { name: addName, command: 'mcpctx', args: ['gateway', 'run'] } });
      const context = `seed ${seed}:\n${text}\n--- result:\n${'text' in result ? result.text : result.refused}`;
      expect('text' in result, context).toBe(true);
      if (!('text' in result)) continue;

      const before = parseAs(text, 'jsonc') as Record<string, unknown>;
      const after = parseAs(result.text, 'jsonc') as Record<string, unknown>;
      const kept = names.filter((name) => !remove.includes(name));
      const oldMap = serversAt.reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], before) as Record<string, unknown>;
      const newMap = serversAt.reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], after) as Record<string, unknown>;
      expect(Object.keys(newMap), context).toEqual([...kept, addName]);
      for (const name of kept) expect(newMap[name], context).toEqual(oldMap[name]);
      expect(newMap[addName], context).toEqual({ command: 'mcpctx', args: ['gateway', 'run'] });

      // The rest of the document reads the same, and its text before and after the map is unchanged.
      const holder = serversAt.slice(0, -1).reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], after) as Record<string, unknown>;
      holder[serversAt.at(-1) as string] = oldMap;
      expect(after, context).toEqual(before);
      const oldNode = findNodeAtLocation(parseTree(text, [], { allowTrailingComma: true })!, serversAt)!;
      const newNode = findNodeAtLocation(parseTree(result.text, [], { allowTrailingComma: true })!, serversAt)!;
      expect(result.text.slice(0, newNode.offset), context).toBe(text.slice(0, oldNode.offset));
      expect(result.text.slice(newNode.offset + newNode.length), context).toBe(text.slice(oldNode.offset + oldNode.length));
      // Each kept entry's text, comments inside it included, is in the result as it was.
      for (const property of oldNode.children ?? []) {
        if (remove.includes(String(property.children?.[0]?.value))) continue;
        expect(result.text, context).toContain(text.slice(property.offset, property.offset + property.length));
      }
      if (strict) {
        strictCount += 1;
        expect(() => JSON.parse(result.text) as unknown, context).not.toThrow();
      }
      // Only the file's own line ending is written.
      if (text.includes('\r\n')) expect(result.text.replace(/\r\n/g, ''), context).not.toContain('\n');
    }
    // Enough of them are plain JSON for the JSON.parse check to mean something.
    expect(strictCount).toBeGreaterThanOrEqual(20);
  });
});
