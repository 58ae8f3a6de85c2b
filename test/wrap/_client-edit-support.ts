// Shared by the client editor's tests: parse a result the way the client would, find its server
// map, and check that the text outside the map is the bytes it was.
import { parse as parseToml } from 'smol-toml';
import { expect } from 'vitest';
import { parseJsonText, parseYamlText } from '../../src/config/index.js';
import { editClientText, type ClientEdit, type ClientFileFormat } from '../../src/wrap/_client-edit.js';

export function parseAs(text: string, format: ClientFileFormat): unknown {
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  if (format === 'toml') return JSON.parse(JSON.stringify(parseToml(body))) as unknown;
  const parsed = format === 'yaml' ? parseYamlText(body) : parseJsonText(body);
  if (!('value' in parsed)) throw new Error(`does not parse: ${JSON.stringify(parsed)}`);
  return parsed.value;
}

export function mapIn(document: unknown, path: readonly string[]): Record<string, unknown> {
  let node = document;
  for (const key of path) node = (node as Record<string, unknown>)[key];
  return node as Record<string, unknown>;
}

/** The edited text; fails the test with the reason when the edit was refused. */
export function edited(text: string, edit: ClientEdit): string {
  const result = editClientText(text, edit);
  if ('refused' in result) throw new Error(`refused: ${result.refused}`);
  return result.text;
}

export function refusal(text: string, edit: ClientEdit): string {
  const result = editClientText(text, edit);
  if (!('refused' in result)) throw new Error(`not refused; gave:\n${result.text}`);
  return result.refused;
}

/**
 * Everything before `start` (first occurrence) and from `end` (first occurrence after `start`)
 * on is byte-identical in `after`.
 */
export function expectOutsideUnchanged(before: string, after: string, start: string, end: string): void {
  const startAt = before.indexOf(start);
  const endAt = before.indexOf(end, startAt + start.length);
  expect(startAt, `marker ${JSON.stringify(start)}`).toBeGreaterThanOrEqual(0);
  expect(endAt, `marker ${JSON.stringify(end)}`).toBeGreaterThan(startAt);
  expect(after.slice(0, startAt + start.length)).toBe(before.slice(0, startAt + start.length));
  expect(after.endsWith(before.slice(endAt))).toBe(true);
}

/** The map's names in order and each entry's value: kept ones as they were, the added one last. */
export function expectMap(after: string, format: ClientFileFormat, path: readonly string[], before: unknown, kept: readonly string[], added: { name: string; value: unknown }): void {
  // Plain JSON files stay plain JSON: their clients read them with JSON.parse.
  if (format === 'json') expect(() => JSON.parse(after.replace(/^\uFEFF/, '')) as unknown).not.toThrow();
  const map = mapIn(parseAs(after, format), path);
  const old = mapIn(before, path);
  expect(Object.keys(map)).toEqual([...kept, added.name]);
  for (const name of kept) expect(map[name]).toEqual(old[name]);
  expect(map[added.name]).toEqual(added.value);
}

/** mulberry32: a small seeded generator, so every run builds the same documents. */
export function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
