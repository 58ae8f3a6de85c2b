// Unit tests of resultCost, the pure analysis of a raw tools/call result: hand-made results, then
// the real GitHub recording (30 pull requests whose head/base repo objects repeat across records).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isMcpctxError } from '../../src/errors/index.js';
import { PREVIEW_CHARS, resultCost, type FieldCost, type ResultCost } from '../../src/measure/index.js';
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
      { index: 0, type: 'text', tokens: 2, bytes: 11, json: false },
      { index: 1, type: 'text', tokens: countTokens('Grüße, 世界'), bytes: 15, json: false },
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
    expect(cost.suggestion.note).toMatch(/not a JSON object or array and no structuredContent/);
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
      duplicateOfBlock: 0,
      duplicateWrapperKey: null,
      totalTokens: countTokens(body) + countTokens(structuredText),
    });
  });

  it('finds the wrapped copy: a one-property object whose value is the text JSON, and names the key', () => {
    const records = [{ number: 1, title: 'one' }, { number: 2, title: 'two' }];
    const cost = resultCost({ content: [text('note first'), text(JSON.stringify(records))], structuredContent: { pull_requests: records } });
    expect(cost.content).toMatchObject({ structuredDuplicatesText: true, duplicateKind: 'wrapped-json', duplicateOfBlock: 1, duplicateWrapperKey: 'pull_requests' });
    expect(cost.content.duplicateTokens).toBe(countTokens(JSON.stringify({ pull_requests: records })));
  });

  it('finds the text itself wrapped as a string in a one-property object', () => {
    const listing = '[FILE] a.txt 10 B\n[DIR] src';
    const cost = resultCost({ content: [text(listing)], structuredContent: { content: listing } });
    expect(cost.content).toMatchObject({ structuredDuplicatesText: true, duplicateKind: 'wrapped-text', duplicateWrapperKey: 'content', duplicateOfBlock: 0 });
    expect(cost.content.duplicateTokens).toBe(countTokens(JSON.stringify({ content: listing })));
  });

  it('does not call it a duplicate when the values differ or the wrapper has more than one property', () => {
    const records = [{ number: 1 }];
    const differs = resultCost({ content: [text(JSON.stringify(records))], structuredContent: { items: [{ number: 2 }] } });
    expect(differs.content).toMatchObject({ structuredDuplicatesText: false, duplicateKind: null, duplicateTokens: 0, duplicateOfBlock: null });
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
      block: null,
      shape: 'envelope',
      envelopeKey: 'items',
      records: 2,
      tokens: countTokens(JSON.stringify(structured)),
      bytes: Buffer.byteLength(JSON.stringify(structured)),
    });
    expect(topLevel(cost).map((candidate) => candidate.path).sort()).toEqual(['id', 'size']);
  });

  it('lists blocks that are not text without counting them, and keeps isError', () => {
    const image = { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' };
    const cost = resultCost({ content: [text('Error: rate limited'), image], isError: true });
    expect(cost.isError).toBe(true);
    expect(cost.content.blocks[1]).toEqual({ index: 1, type: 'image', tokens: null, bytes: Buffer.byteLength(JSON.stringify(image)), json: false });
    expect(cost.content.textTokens).toBe(countTokens('Error: rate limited'));
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

  it('reduces a nested object to its identifying value under the parent name, and lists of objects likewise', () => {
    expect(suggestion.fields.find((candidate) => candidate.name === 'user')).toMatchObject({ source: 'user.login' });
    expect(suggestion.fields.find((candidate) => candidate.name === 'labels')).toMatchObject({ source: 'labels[].name' });
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
      labels: record.labels.map((label) => label.name),
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

  it('treats a key such as __proto__ as an ordinary field', () => {
    const odd = resultCost({ content: [text('[{"__proto__":{"login":"x"},"id":1}]')] });
    expect(odd.suggestion.fields.map((candidate) => candidate.name)).toEqual(['__proto__', 'id']);
    expect(odd.suggestion.tokens).toBe(countTokens('[{"__proto__":"x","id":1}]'));
  });
});

describe('resultCost on the real recording (30 GitHub pull requests)', () => {
  const body = readFileSync(PULLS_FILE, 'utf8');
  const pulls = JSON.parse(body) as unknown[];
  const cost = resultCost({ content: [text(body)], structuredContent: { pull_requests: pulls } });

  it('counts the text and finds the structured copy wrapped in pull_requests', () => {
    expect(cost.content.textTokens).toBe(PULLS_TOKENS);
    expect(cost.payload).toMatchObject({ source: 'text', shape: 'records', records: 30, tokens: PULLS_TOKENS });
    expect(cost.content).toMatchObject({ structuredDuplicatesText: true, duplicateWrapperKey: 'pull_requests', duplicateOfBlock: 0 });
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

  it('gives byte-identical output for the same input', () => {
    const again = resultCost({ content: [text(body)], structuredContent: { pull_requests: JSON.parse(body) as unknown } });
    expect(JSON.stringify(again)).toBe(JSON.stringify(cost));
  });
});
