// Unit tests of resultCost, the pure analysis of a raw tools/call result: hand-made results, then
// the real GitHub recording (30 pull requests whose head/base repo objects repeat across records).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isMcpctxError } from '../../src/errors/index.js';
import type { FieldCost, ResultCost } from '../../src/measure/index.js';
import { ERROR_TEXT_CHARS, resultCost } from '../../src/measure/_result-cost.js';
import { PREVIEW_CHARS } from '../../src/measure/_suggest-projection.js';
import { toolResultCost } from '../../src/shape/index.js';
import { countTokens } from '../../src/tokens/index.js';

const PULLS_FILE = fileURLToPath(
  new URL('../fixtures/github-pulls-issues/pygithub/openmicroscopy_ome-documentation_pulls_state-closed.body.json', import.meta.url),
);
const PULLS_TOKENS = 113_801;

const text = (value: string): { type: 'text'; text: string } => ({ type: 'text', text: value });

function field(cost: ResultCost, path: string): FieldCost {
  const found = cost.fields.find((candidate) => candidate.path === path);
  if (!found) throw new Error(`no field ${path} in ${cost.fields.map((candidate) => candidate.path).join(', ')}`);
  return found;
}

function topLevel(cost: ResultCost): FieldCost[] {
  return cost.fields.filter((candidate) => candidate.parent === null);
}

describe('resultCost: content blocks and structuredContent', () => {
  it('counts a text-only result in tokens and UTF-8 bytes, with no payload when the text is not JSON', () => {
    const cost = resultCost({ content: [text('hello world'), text('Grüße, 世界')] });
    expect(cost.isError).toBe(false);
    expect(cost.content.blocks).toEqual([
      { index: 0, type: 'text', kind: 'text', tokens: 2, bytes: 11, json: false },
      { index: 1, type: 'text', kind: 'text', tokens: countTokens('Grüße, 世界'), bytes: 15, json: false },
    ]);
    expect(cost.content).toMatchObject({
      textTokens: 2 + countTokens('Grüße, 世界'),
      textBytes: 26,
      structuredTokens: null,
      structuredBytes: null,
      structuredDuplicatesText: false,
      duplicateTokens: 0,
      duplicateWrapperKey: null,
    });
    expect(cost.payload).toBeNull();
    expect(cost.fields).toEqual([]);
    expect(cost.suggestion).toMatchObject({ label: 'suggestion, not applied', fields: [], tokens: null });
    expect(cost.suggestion.note).toMatch(/no text block holds a JSON object or array and no structuredContent/);
  });

  it('finds structuredContent that is the same JSON value as the text, key order ignored', () => {
    const structured = { total: 2, items: [{ id: 1, name: 'a' }, { name: 'b', id: 2 }] };
    const body = '{\n  "items": [{"id": 1, "name": "a"}, {"id": 2, "name": "b"}],\n  "total": 2\n}';
    const cost = resultCost({ content: [text(body)], structuredContent: structured });
    const structuredText = JSON.stringify(structured);
    expect(cost.content).toMatchObject({
      textTokens: countTokens(body),
      structuredTokens: countTokens(structuredText),
      structuredBytes: Buffer.byteLength(structuredText),
      structuredDuplicatesText: true,
      duplicateKind: 'json',
      duplicateTokens: countTokens(structuredText),
      duplicateOfBlocks: [0],
      duplicateWrapperKey: null,
      totalTokens: countTokens(body) + countTokens(structuredText),
    });
  });

  it('finds the wrapped copy: a one-property object whose value is the text JSON, and names the key', () => {
    const records = [{ number: 1, title: 'one' }, { number: 2, title: 'two' }];
    const cost = resultCost({ content: [text('note first'), text(JSON.stringify(records))], structuredContent: { pull_requests: records } });
    expect(cost.content).toMatchObject({ structuredDuplicatesText: true, duplicateKind: 'wrapped-json', duplicateOfBlocks: [1], duplicateWrapperKey: 'pull_requests' });
    expect(cost.content.duplicateTokens).toBe(countTokens(JSON.stringify({ pull_requests: records })));
  });

  it('finds the text itself wrapped as a string in a one-property object', () => {
    const listing = '[FILE] a.txt 10 B\n[DIR] src';
    const cost = resultCost({ content: [text(listing)], structuredContent: { content: listing } });
    expect(cost.content).toMatchObject({ structuredDuplicatesText: true, duplicateKind: 'wrapped-text', duplicateWrapperKey: 'content', duplicateOfBlocks: [0] });
    expect(cost.content.duplicateTokens).toBe(countTokens(JSON.stringify({ content: listing })));
  });

  it('does not call it a duplicate when the values differ or the wrapper has more than one property', () => {
    const records = [{ number: 1 }];
    const differs = resultCost({ content: [text(JSON.stringify(records))], structuredContent: { items: [{ number: 2 }] } });
    expect(differs.content).toMatchObject({ structuredDuplicatesText: false, duplicateKind: null, duplicateTokens: 0, duplicateOfBlocks: [] });
    const otherText = resultCost({ content: [text('one listing')], structuredContent: { content: 'another listing' } });
    expect(otherText.content.structuredDuplicatesText).toBe(false);
    const twoKeys = resultCost({ content: [text(JSON.stringify(records))], structuredContent: { items: records, total: 1 } });
    expect(twoKeys.content.structuredDuplicatesText).toBe(false);
    const order = resultCost({ content: [text('[1,2]')], structuredContent: { items: [2, 1] } });
    expect(order.content.structuredDuplicatesText).toBe(false);
  });

  it('reads the payload from structuredContent when the text is not JSON', () => {
    const structured = { items: [{ id: 'a', size: 1 }, { id: 'b', size: 2 }], total: 2 };
    const cost = resultCost({ content: [text('Found 2 items.')], structuredContent: structured });
    expect(cost.content.structuredDuplicatesText).toBe(false);
    expect(cost.payload).toEqual({
      source: 'structuredContent',
      blocks: [],
      path: ['items'],
      shape: 'records',
      records: 2,
      tokens: countTokens(JSON.stringify(structured)),
      bytes: Buffer.byteLength(JSON.stringify(structured)),
    });
    expect(topLevel(cost).map((candidate) => candidate.path).sort()).toEqual(['id', 'size']);
  });

  it('keeps isError and the error text, bounded', () => {
    const image = { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' };
    const cost = resultCost({ content: [text('Error: rate limited'), image], isError: true });
    expect(cost).toMatchObject({ isError: true, errorText: 'Error: rate limited' });
    expect(resultCost({ content: [text('fine')] }).errorText).toBeNull();
    const long = 'Traceback (most recent call last):\n' + '  File "server.py", line 42, in handler\n'.repeat(200);
    const bounded = resultCost({ content: [text(long)], isError: true }).errorText ?? '';
    expect(bounded.startsWith(long.slice(0, ERROR_TEXT_CHARS))).toBe(true);
    expect(bounded.slice(ERROR_TEXT_CHARS)).toBe(`… (${long.length - ERROR_TEXT_CHARS} more characters)`);
    // Nothing but structuredContent: its JSON is what the error says.
    expect(resultCost({ content: [], structuredContent: { error: 'quota exceeded' }, isError: true }).errorText).toBe('{"error":"quota exceeded"}');
  });

  it('refuses structuredContent nested too deep to walk, and reads such text as plain text', () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    expect(() => resultCost({ content: [], structuredContent: { a: JSON.parse(deep) as unknown } })).toThrow(/deeper than 512 levels/);
    const cost = resultCost({ content: [text(deep)] });
    expect(cost.content.blocks[0]).toMatchObject({ tokens: countTokens(deep), json: false });
    expect(cost.payload).toBeNull();
    expect(cost.notes[0]).toBe('content[0] is JSON nested deeper than 512 levels: read as plain text');
  });

  it('refuses a result that is not an object', () => {
    for (const bad of [null, [], 'text', 3]) {
      expect(() => resultCost(bad)).toThrow(expect.objectContaining({ code: 'PROTOCOL' }));
    }
    try {
      resultCost(null);
    } catch (error) {
      expect(isMcpctxError(error, 'PROTOCOL')).toBe(true);
    }
  });
});

describe('resultCost: every part of a result, read as toolResultParts reads it', () => {
  const readme = '# Widgets\n\nThe widget factory of Acme Corporation.\n';
  const link = { type: 'resource_link', uri: 'file:///repo/docs/guide.md', name: 'guide.md', description: 'The user guide', mimeType: 'text/markdown' };
  const widget = { type: 'widget', label: 'a block type no client knows' };
  const pixel = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
  const blob = 'AAECAwQFBgc=';
  const wav = 'UklGRg==';
  const result = {
    content: [
      text('Found 1 file and 1 link.'),
      { type: 'resource', resource: { uri: 'file:///repo/README.md', mimeType: 'text/markdown', text: readme } },
      link,
      widget,
      { type: 'image', data: pixel, mimeType: 'image/png' },
      { type: 'resource', resource: { uri: 'file:///repo/logo.bin', blob } },
      { type: 'audio', data: wav, mimeType: 'audio/wav' },
    ],
    structuredContent: { files: 1, links: 1 },
  };
  const cost = resultCost(result);
  const textTokens = countTokens('Found 1 file and 1 link.') + countTokens(readme) + countTokens(JSON.stringify(link)) + countTokens(JSON.stringify(widget));

  it('counts embedded text resources, resource_link blocks and unknown blocks in the total, as text', () => {
    expect(cost.content.blocks.slice(0, 4)).toEqual([
      { index: 0, type: 'text', kind: 'text', tokens: countTokens('Found 1 file and 1 link.'), bytes: 24, json: false },
      { index: 1, type: 'resource', kind: 'resource-text', tokens: countTokens(readme), bytes: Buffer.byteLength(readme), json: false },
      { index: 2, type: 'resource_link', kind: 'resource-link', tokens: countTokens(JSON.stringify(link)), bytes: Buffer.byteLength(JSON.stringify(link)), json: false },
      { index: 3, type: 'widget', kind: 'other', tokens: countTokens(JSON.stringify(widget)), bytes: Buffer.byteLength(JSON.stringify(widget)), json: false },
    ]);
    expect(cost.content.textTokens).toBe(textTokens);
    expect(cost.content.totalTokens).toBe(textTokens + countTokens('{"files":1,"links":1}'));
    expect(cost.estimate.realTokens).toBe(cost.content.totalTokens);
  });

  it('reports images, audio and blobs by their decoded bytes, never as text tokens', () => {
    const decoded = [pixel, blob, wav].map((data) => Buffer.from(data, 'base64').length);
    expect(cost.content.blocks.slice(4).map((block) => [block.kind, block.tokens, block.bytes])).toEqual([
      ['image', null, decoded[0]],
      ['resource-blob', null, decoded[1]],
      ['audio', null, decoded[2]],
    ]);
    expect(cost.content.binaryBytes).toBe(decoded.reduce((sum, bytes) => sum + bytes, 0));
    expect(cost.content.textBytes).toBe(cost.content.blocks.slice(0, 4).reduce((sum, block) => sum + block.bytes, 0));
  });

  it('agrees with toolResultCost part for part, and the estimate reads the same text', () => {
    const shape = toolResultCost(result);
    expect(cost.content.totalTokens).toBe(shape.textTokens);
    expect(cost.content.binaryBytes).toBe(shape.binaryBytes);
    const contentParts = shape.parts.filter((part) => part.block !== null);
    expect(cost.content.blocks.map((block) => [block.kind, block.tokens, block.bytes])).toEqual(contentParts.map((part) => [part.kind, part.tokens, part.bytes]));
    expect(cost.estimate.chars).toBe(shape.parts.reduce((sum, part) => sum + (part.text?.length ?? 0), 0));
  });

  it('reads a JSON payload from an embedded text resource', () => {
    const records = [{ id: 1, title: 'one' }, { id: 2, title: 'two' }];
    const embedded = resultCost({ content: [{ type: 'resource', resource: { uri: 'mem://rows', mimeType: 'application/json', text: JSON.stringify(records) } }] });
    expect(embedded.payload).toMatchObject({ source: 'text', blocks: [0], shape: 'records', records: 2 });
    expect(embedded.content.blocks[0]).toMatchObject({ kind: 'resource-text', json: true });
  });
});

describe('resultCost: a Python-SDK list result (one JSON text block per item, structuredContent {"result": [...]})', () => {
  const items = [
    { name: 'httpx', version: '0.28.1', summary: 'The next generation HTTP client.' },
    { name: 'pydantic', version: '2.11.7', summary: 'Data validation using Python type hints' },
    { name: 'rich', version: '14.0.0', summary: 'Render rich text and beautiful formatting in the terminal' },
  ];
  const pythonList = (list: readonly object[]): Record<string, unknown> => ({
    content: list.map((item) => text(JSON.stringify(item, null, 2))),
    structuredContent: { result: list },
    isError: false,
  });
  const cost = resultCost(pythonList(items));

  it('reads every block as one list of records', () => {
    const compact = JSON.stringify(items);
    expect(cost.payload).toEqual({
      source: 'blocks',
      blocks: [0, 1, 2],
      path: [],
      shape: 'records',
      records: 3,
      tokens: countTokens(compact),
      bytes: Buffer.byteLength(compact),
    });
    expect(field(cost, 'name')).toMatchObject({ records: 3, tokens: items.reduce((sum, item) => sum + countTokens(`"name":${JSON.stringify(item.name)}`), 0) });
    expect(cost.content.textTokens).toBe(items.reduce((sum, item) => sum + countTokens(JSON.stringify(item, null, 2)), 0));
  });

  it('finds structuredContent repeating all the blocks under "result"', () => {
    expect(cost.content).toMatchObject({
      structuredDuplicatesText: true,
      duplicateKind: 'wrapped-json',
      duplicateWrapperKey: 'result',
      duplicateOfBlocks: [0, 1, 2],
      duplicateTokens: countTokens(JSON.stringify({ result: items })),
    });
  });

  it('finds the copy of a list of one, and the copy of the list sent bare', () => {
    expect(resultCost(pythonList(items.slice(0, 1))).content).toMatchObject({ duplicateKind: 'wrapped-json', duplicateOfBlocks: [0] });
    const bare = resultCost({ content: items.map((item) => text(JSON.stringify(item))), structuredContent: items });
    expect(bare.content).toMatchObject({ duplicateKind: 'json', duplicateOfBlocks: [0, 1, 2] });
  });

  it('reads one block when the JSON blocks are not all objects', () => {
    const mixed = resultCost({ content: [text('[{"id":1},{"id":2}]'), text('{"total":2}')] });
    expect(mixed.payload).toMatchObject({ source: 'text', blocks: [0], shape: 'records', records: 2 });
  });

  it('reads records under a one-key wrapper in structuredContent', () => {
    const wrapped = resultCost({ content: [text('2 packages')], structuredContent: { result: items.slice(0, 2) } });
    expect(wrapped.payload).toMatchObject({ source: 'structuredContent', path: ['result'], shape: 'records', records: 2 });
  });
});

describe('resultCost: tokens per field', () => {
  const repo = { id: 99, full_name: 'acme/widgets', description: 'The widget factory of Acme Corporation, with every widget ever made', private: false };
  const records = [1, 2, 3, 4].map((number) => ({
    number,
    state: 'open',
    repo,
    owner: { login: `user${number}`, bio: `Biography number ${number}, long enough to matter in tokens` },
    head: { sha: `c0ffee${number}`, repo },
  }));
  const cost = resultCost({ content: [text(JSON.stringify(records))] });

  it('counts each field as the o200k tokens of its compact "key":value text, summed over records', () => {
    for (const key of ['number', 'state', 'repo', 'owner', 'head'] as const) {
      const expected = records.reduce((sum, record) => sum + countTokens(`${JSON.stringify(key)}:${JSON.stringify(record[key])}`), 0);
      expect(field(cost, key).tokens).toBe(expected);
      expect(field(cost, key).records).toBe(4);
    }
    const child = records.reduce((sum, record) => sum + countTokens(`"repo":${JSON.stringify(record.head.repo)}`), 0);
    expect(field(cost, 'head.repo')).toMatchObject({ parent: 'head', tokens: child });
  });

  it('marks repeated nested objects as copies and a distinct nested object not', () => {
    const repoTokens = countTokens(`"repo":${JSON.stringify(repo)}`);
    expect(field(cost, 'repo')).toMatchObject({ copy: true, repeatedTokens: 3 * repoTokens });
    expect(field(cost, 'owner')).toMatchObject({ copy: false, repeatedTokens: 0 });
    // head itself never repeats (its sha differs), but the repo inside it does: recursion.
    expect(field(cost, 'head.repo')).toMatchObject({ copy: true, repeatedTokens: 3 * repoTokens });
    expect(field(cost, 'head').repeatedTokens).toBe(3 * repoTokens);
    expect(field(cost, 'head').copy).toBe(true);
    expect(field(cost, 'head.sha')).toMatchObject({ copy: false, repeatedTokens: 0 });
  });

  it('never counts scalars, {} or [] as copies, even when every record holds the same value', () => {
    expect(field(cost, 'state')).toMatchObject({ copy: false, repeatedTokens: 0 });
    const empty = resultCost({ content: [text('[{"id":1,"labels":[],"meta":{}},{"id":2,"labels":[],"meta":{}}]')] });
    expect(field(empty, 'labels')).toMatchObject({ copy: false, repeatedTokens: 0 });
    expect(field(empty, 'meta')).toMatchObject({ copy: false, repeatedTokens: 0 });
  });

  it('sorts by tokens, largest first, children in the same list; shares are of the whole payload', () => {
    const tokens = cost.fields.map((candidate) => candidate.tokens);
    expect(tokens).toEqual([...tokens].sort((a, b) => b - a));
    const payloadTokens = countTokens(JSON.stringify(records));
    expect(cost.payload?.tokens).toBe(payloadTokens);
    for (const candidate of cost.fields) expect(candidate.share).toBe(Math.round((candidate.tokens / payloadTokens) * 10_000) / 10_000);
    const sum = topLevel(cost).reduce((total, candidate) => total + candidate.share, 0);
    expect(sum).toBeGreaterThan(0.9);
    expect(sum).toBeLessThan(1.1);
  });

  it('breaks down one object by its top-level keys', () => {
    const single = resultCost({ content: [text('{"id":7,"user":{"login":"octo","id":1},"tags":["a","b"]}')] });
    expect(single.payload).toMatchObject({ shape: 'object', records: 1 });
    expect(single.fields.map((candidate) => candidate.path).sort()).toEqual(['id', 'tags', 'user', 'user.id', 'user.login']);
    expect(single.fields.every((candidate) => !candidate.copy)).toBe(true);
  });

  it('gives no breakdown for an array that is not a list of records', () => {
    const numbers = resultCost({ content: [text('[1, 2, {"a": 1}]')] });
    expect(numbers.payload?.shape).toBe('other');
    expect(numbers.fields).toEqual([]);
    expect(numbers.suggestion.tokens).toBeNull();
  });
});

describe('resultCost: the characters/4 estimate', () => {
  it('is Math.ceil(chars / 4) beside the real count, with its error in percent to one decimal', () => {
    const cost = resultCost({ content: [text('hello world')] });
    expect(cost.estimate).toEqual({ chars: 11, charsOver4: 3, realTokens: 2, errorPercent: 50 });
  });

  it('counts text blocks and the compact structuredContent', () => {
    const structured = { greeting: 'hello world', target: 'Grüße' };
    const cost = resultCost({ content: [text('hello world'), text('Grüße, 世界')], structuredContent: structured });
    const chars = 11 + 'Grüße, 世界'.length + JSON.stringify(structured).length;
    const real = 2 + countTokens('Grüße, 世界') + countTokens(JSON.stringify(structured));
    expect(cost.estimate).toEqual({
      chars,
      charsOver4: Math.ceil(chars / 4),
      realTokens: real,
      errorPercent: Math.round(((Math.ceil(chars / 4) - real) / real) * 1000) / 10,
    });
  });

  it('has no error figure for an empty result', () => {
    expect(resultCost({ content: [] }).estimate).toEqual({ chars: 0, charsOver4: 0, realTokens: 0, errorPercent: null });
  });
});

describe('resultCost: the suggested projection', () => {
  const long = 'x'.repeat(PREVIEW_CHARS + 20);
  const records = [
    {
      id: 11,
      node_id: 'MDExOlB1bGxSZXF1ZXN0MQ==',
      number: 1,
      key: 'PROJ-1',
      name: 'first',
      url: 'https://api.example.com/items/1',
      comments_url: 'https://api.example.com/items/1/comments',
      homepage: 'https://example.com/1',
      html_url: 'https://example.com/items/1',
      _links: { self: { href: 'https://api.example.com/items/1' } },
      user: { login: 'octocat', id: 5, avatar_url: 'https://example.com/a.png' },
      labels: [{ name: 'bug', color: 'f00' }],
      draft: false,
      score: 0.5,
      closed_at: null,
      state: 'open',
      body: long,
    },
    {
      id: 12,
      node_id: 'MDExOlB1bGxSZXF1ZXN0Mg==',
      number: 2,
      key: 'PROJ-2',
      name: 'second',
      url: 'https://api.example.com/items/2',
      comments_url: 'https://api.example.com/items/2/comments',
      homepage: 'http://example.com/2',
      html_url: 'https://example.com/items/2',
      _links: { self: { href: 'https://api.example.com/items/2' } },
      user: null,
      labels: [],
      draft: true,
      score: 1,
      closed_at: '2024-01-01T00:00:00Z',
      state: 'closed',
      body: 'short',
    },
  ];
  const cost = resultCost({ content: [text(JSON.stringify(records))] });
  const { suggestion } = cost;

  it('is labelled a suggestion', () => {
    expect(suggestion.label).toBe('suggestion, not applied');
  });

  it('keeps identifiers, scalars, short strings and html_url; drops links and _links', () => {
    const kept = Object.fromEntries(suggestion.fields.map((candidate) => [candidate.name, candidate.source]));
    for (const name of ['id', 'node_id', 'number', 'key', 'name', 'html_url', 'draft', 'score', 'closed_at', 'state']) expect(kept[name]).toBe(name);
    const dropped = Object.fromEntries(suggestion.dropped.map((candidate) => [candidate.path, candidate.reason]));
    expect(dropped).toMatchObject({
      url: 'rebuildable link',
      comments_url: 'rebuildable link',
      homepage: 'rebuildable link',
      _links: 'hypermedia links, rebuildable',
      'user.id': 'nested object, reduced to user.login',
      'user.avatar_url': 'nested object, reduced to user.login',
    });
  });

  it('reduces a nested object to its identifying value under the parent name, and keeps a short list whole', () => {
    expect(suggestion.fields.find((candidate) => candidate.name === 'user')).toMatchObject({ source: 'user.login' });
    expect(suggestion.fields.find((candidate) => candidate.name === 'labels')).toMatchObject({ source: 'labels', rule: 'short list (80 characters or fewer)' });
  });

  it('drops a long list of objects, naming where their identifying values are', () => {
    const many = records.map((record, index) => ({ ...record, labels: [{ name: `label-${index}`, color: 'f00', description: 'x'.repeat(60) }] }));
    const dropped = resultCost({ content: [text(JSON.stringify(many))] }).suggestion.dropped.find((candidate) => candidate.path === 'labels');
    expect(dropped?.reason).toMatch(/a projection keeps a list whole or leaves it out \(their identifying values are at labels\[\]\.name\)$/);
  });

  it('keeps long text as a capped preview with a truncation flag', () => {
    expect(suggestion.fields.find((candidate) => candidate.name === 'body')).toMatchObject({
      source: 'body',
      previewChars: PREVIEW_CHARS,
      truncatedFlag: 'body_truncated',
    });
  });

  it('counts the projected records for real', () => {
    const projected = records.map((record) => ({
      id: record.id,
      node_id: record.node_id,
      number: record.number,
      key: record.key,
      name: record.name,
      html_url: record.html_url,
      user: record.user?.login ?? null,
      labels: record.labels,
      draft: record.draft,
      score: record.score,
      closed_at: record.closed_at,
      state: record.state,
      body: record.body.slice(0, PREVIEW_CHARS),
      body_truncated: record.body.length > PREVIEW_CHARS,
    }));
    expect(suggestion.tokens).toBe(countTokens(JSON.stringify(projected)));
    expect(suggestion.share).toBe(Math.round(((suggestion.tokens ?? 0) / (cost.payload?.tokens ?? 1)) * 10_000) / 10_000);
  });

  it('never names __proto__ in a projection: dropped when it is small, no suggestion when it holds the answer', () => {
    const small = resultCost({ content: [text(`[{"__proto__":1,"id":1,"url":"https://example.com/1","body":"${'x'.repeat(60)}"}]`)] });
    expect(small.suggestion.fields.map((candidate) => candidate.name)).toEqual(['id', 'body']);
    expect(small.suggestion.dropped[0]).toEqual({ path: '__proto__', reason: 'a projection path cannot name it (an empty name, a name with a dot, or __proto__)' });
    expect(small.suggestion.tokens).toBe(countTokens(`[{"id":1,"body":"${'x'.repeat(60)}"}]`));
    const answer = resultCost({ content: [text('[{"__proto__":{"login":"x","bio":"a long biography of the user"},"id":1}]')] });
    expect(answer.suggestion).toMatchObject({ tokens: null, spec: [] });
    expect(answer.suggestion.note).toMatch(/^"__proto__" holds \d+\.\d% of the payload, and a projection path cannot name it/);
  });
});

describe('resultCost on the real recording (30 GitHub pull requests)', () => {
  const body = readFileSync(PULLS_FILE, 'utf8');
  const pulls = JSON.parse(body) as unknown[];
  const cost = resultCost({ content: [text(body)], structuredContent: { pull_requests: pulls } });

  it('counts the text and finds the structured copy wrapped in pull_requests', () => {
    expect(cost.content.textTokens).toBe(PULLS_TOKENS);
    expect(cost.payload).toMatchObject({ source: 'text', shape: 'records', records: 30, tokens: PULLS_TOKENS });
    expect(cost.content).toMatchObject({ structuredDuplicatesText: true, duplicateWrapperKey: 'pull_requests', duplicateOfBlocks: [0] });
    expect(cost.content.duplicateTokens).toBe(countTokens(JSON.stringify({ pull_requests: pulls })));
  });

  it('ranks head and base first, both copies: their repo objects repeat across records', () => {
    const [first, second] = topLevel(cost);
    expect([first?.path, second?.path]).toEqual(['head', 'base']);
    expect(first).toMatchObject({ tokens: 49_072, copy: true });
    expect(second).toMatchObject({ tokens: 40_458, copy: true });
    expect(first?.share).toBeCloseTo(0.43, 2);
    expect(second?.share).toBeCloseTo(0.36, 2);
    expect(field(cost, 'head.repo').copy).toBe(true);
    expect(field(cost, 'base.repo').copy).toBe(true);
    expect(field(cost, 'body').copy).toBe(false);
    const sum = topLevel(cost).reduce((total, candidate) => total + candidate.share, 0);
    expect(Math.abs(sum - 1)).toBeLessThan(0.01);
  });

  it('suggests a projection that keeps ids and reduces head and base to their refs', () => {
    const kept = Object.fromEntries(cost.suggestion.fields.map((candidate) => [candidate.name, candidate.source]));
    expect(kept).toMatchObject({ id: 'id', number: 'number', html_url: 'html_url', user: 'user.login', head: 'head.ref', base: 'base.ref', body: 'body' });
    expect(kept).not.toHaveProperty('url');
    expect(kept).not.toHaveProperty('_links');
    // state (closed in all 30), assignee and milestone (null in all 30) say nothing per record.
    const dropped = Object.fromEntries(cost.suggestion.dropped.map((candidate) => [candidate.path, candidate.reason]));
    expect(dropped.state).toMatch(/same value in all 30 records \("closed"\)/);
    expect(dropped.assignee).toMatch(/same value in all 30 records \(null\)/);
    expect(dropped.merge_commit_sha).toMatch(/opaque hash/);
    expect(kept).toMatchObject({ title: 'title', created_at: 'created_at', merged_at: 'merged_at' });
    expect(cost.suggestion.fields.find((candidate) => candidate.name === 'title')?.truncatedFlag).toBeUndefined();
    expect(cost.suggestion.tokens).toBe(5_587);
    expect(cost.suggestion.tokens ?? Infinity).toBeLessThan(0.05 * PULLS_TOKENS);
  });

  it('puts the characters/4 guess beside the real count', () => {
    const chars = body.length + JSON.stringify({ pull_requests: pulls }).length;
    expect(cost.estimate.chars).toBe(chars);
    expect(cost.estimate.realTokens).toBe(cost.content.totalTokens);
    expect(cost.estimate.errorPercent).toBe(-6.7);
  });

  // Each field's tokens are of its own "key":value text, so the order a record lists its keys in
  // must not change the breakdown; fields of equal tokens are ordered by path, not by first sight.
  it('gives the same field breakdown whatever order each record lists its keys in', () => {
    const rotated = (pulls as Array<Record<string, unknown>>).map((pull, index) => {
      const entries = Object.entries(pull);
      const turn = (index * 7 + 3) % entries.length;
      return Object.fromEntries([...entries.slice(turn), ...entries.slice(0, turn)]);
    });
    expect(rotated.map((pull) => Object.keys(pull)[0])).not.toEqual(pulls.map((pull) => Object.keys(pull as object)[0]));
    const reordered = resultCost({ content: [text(JSON.stringify(rotated))] });
    const withoutShare = (fields: readonly FieldCost[]): unknown[] => fields.map(({ share: _share, ...rest }) => rest);
    const ties = cost.fields.filter((candidate, index) => cost.fields[index - 1]?.tokens === candidate.tokens);
    expect(ties.length).toBeGreaterThan(0); // equal-token fields exist, so their order is under test
    expect(JSON.stringify(withoutShare(reordered.fields))).toBe(JSON.stringify(withoutShare(cost.fields)));
  });
});
