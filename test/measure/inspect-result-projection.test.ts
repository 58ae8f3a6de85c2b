// The projection inspect-result suggests, on payloads where it used to drop the answer (the
// packages of a package-lock, the relations of a knowledge graph, error.message) or cost more than
// the payload (records of different shapes): it never does either, and it is a FieldSpec[] that
// defineProjection takes as is, whose token figure is that projection applied.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { ResultCost } from '../../src/measure/index.js';
import { ANSWER_SHARE } from '../../src/measure/_suggest-projection.js';
import { resultCost } from '../../src/measure/_result-cost.js';
import { defineProjection } from '../../src/shape/index.js';
import { countTokens } from '../../src/tokens/index.js';

const fixture = (name: string): string => readFileSync(fileURLToPath(new URL(`../fixtures/inspect-result/${name}`, import.meta.url)), 'utf8');
const textResult = (body: string): Record<string, unknown> => ({ content: [{ type: 'text', text: body }] });

const PULLS = fixture('../github-pulls-issues/pygithub/openmicroscopy_ome-documentation_pulls_state-closed.body.json');

/** Every payload of these tests, as the result a server sends. */
const RESULTS: Record<string, Record<string, unknown>> = {
  'package-lock': textResult(fixture('package-lock.slice.json')),
  'read_graph': JSON.parse(fixture('memory-read-graph.result.json')) as Record<string, unknown>,
  'stripe error': textResult(fixture('stripe-error.json')),
  'stripe list with error objects': textResult(fixture('stripe-batch-errors.json')),
  'n8n search_nodes': textResult(fixture('n8n-search-nodes.json')),
  'github pulls': textResult(PULLS),
};

function analyse(name: string): ResultCost {
  const result = RESULTS[name];
  if (result === undefined) throw new Error(`no result ${name}`);
  return resultCost(result);
}

/** The payload as parsed: the first text block's JSON. */
function payloadOf(name: string): unknown {
  const content = RESULTS[name]?.content as Array<{ text: string }>;
  return JSON.parse(content[0]?.text ?? 'null') as unknown;
}

function at(value: unknown, path: readonly string[]): unknown {
  return path.reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], value);
}

describe('the suggested projection never drops the answer', () => {
  it('keeps the packages of a package-lock: no suggestion, since nothing else is worth cutting', () => {
    const cost = analyse('package-lock');
    expect(cost.payload).toMatchObject({ shape: 'object', path: [] });
    const packages = cost.fields.find((field) => field.path === 'packages');
    expect(packages?.share).toBeGreaterThanOrEqual(ANSWER_SHARE);
    expect(cost.suggestion.dropped.map((field) => field.path)).not.toContain('packages');
    expect(cost.suggestion).toMatchObject({ tokens: null, spec: [] });
    expect(cost.suggestion.note).toBe(
      `no projection saves tokens: the suggestion would cost ${cost.payload?.tokens} tokens, 100.0% of the payload's ${cost.payload?.tokens}; it keeps packages whole: the answer`,
    );
  });

  it('keeps the entities and the relations of a knowledge graph (server-memory read_graph)', () => {
    const cost = analyse('read_graph');
    expect(cost.content).toMatchObject({ structuredDuplicatesText: true, duplicateKind: 'json', duplicateOfBlocks: [0] });
    expect(cost.suggestion.dropped.map((field) => field.path)).toEqual([]);
    expect(cost.suggestion.tokens).toBeNull();
    expect(cost.suggestion.note).toMatch(/; it keeps entities, relations whole: the answer$/);
  });

  it('keeps error.message of an error object: the wrapper is read through, links are what goes', () => {
    const cost = analyse('stripe error');
    expect(cost.payload).toMatchObject({ path: ['error'], shape: 'object', records: 1 });
    expect(cost.suggestion.spec).toEqual(['code', 'message', 'param', 'type']);
    expect(cost.suggestion.dropped).toEqual([
      { path: 'doc_url', reason: 'rebuildable link' },
      { path: 'request_log_url', reason: 'rebuildable link' },
    ]);
    const error = (payloadOf('stripe error') as { error: Record<string, unknown> }).error;
    const projected = { error: { code: error.code, message: error.message, param: error.param, type: error.type } };
    expect(cost.suggestion.tokens).toBe(countTokens(JSON.stringify(projected)));
  });

  it('keeps the scalar fields of a nested object with no identifying key (last_payment_error.message)', () => {
    const cost = analyse('stripe list with error objects');
    expect(cost.payload).toMatchObject({ path: ['data'], shape: 'records', records: 5 });
    expect(cost.suggestion.spec).toEqual(
      expect.arrayContaining([
        { path: 'last_payment_error.code', as: 'last_payment_error_code' },
        { path: 'last_payment_error.message', as: 'last_payment_error_message' },
        { path: 'last_payment_error.decline_code', as: 'last_payment_error_decline_code' },
      ]),
    );
    expect(cost.suggestion.dropped).toEqual(
      expect.arrayContaining([
        { path: 'last_payment_error.doc_url', reason: 'rebuildable link' },
        { path: 'object', reason: 'the same value in all 5 records ("payment_intent"): say it once, not per record' },
        { path: 'payment_method_types', reason: 'the same value in all 5 records (["card"]): say it once, not per record' },
      ]),
    );
    expect(cost.suggestion.tokens ?? Infinity).toBeLessThan(cost.payload?.tokens ?? 0);
  });

  it('keeps a field holding most of a list of records: a nested object keeps its scalar fields, not an identifier', () => {
    const edges = [1, 2, 3].map((number) => ({ node: { number, title: `Issue ${number}`, state: number === 2 ? 'closed' : 'open', body: `Steps to reproduce ${number}`, url: `https://github.com/acme/widgets/issues/${number}` } }));
    const cost = resultCost(textResult(JSON.stringify({ edges })));
    expect(cost.suggestion.spec).toEqual([
      { path: 'node.number', as: 'node_number' },
      { path: 'node.title', as: 'node_title' },
      { path: 'node.state', as: 'node_state' },
      { path: 'node.body', as: 'node_body' },
    ]);
  });
});

describe('the suggested projection never costs more than the payload', () => {
  it('makes no suggestion for records of different shapes whose nulls would outweigh what it drops, and says why', () => {
    const cost = analyse('n8n search_nodes');
    expect(cost.payload).toMatchObject({ path: ['results'], shape: 'records', records: 10 });
    expect(cost.suggestion).toMatchObject({ tokens: null, share: null, spec: [] });
    const note = cost.suggestion.note ?? '';
    const match = /^no projection saves tokens: the suggestion would cost (\d+) tokens, ([\d.]+)% of the payload's (\d+); records of different shapes get null for every kept field they lack \((\d+) nulls\): a projection gives every record the same keys$/.exec(note);
    expect(match, note).not.toBeNull();
    expect(Number(match?.[3])).toBe(cost.payload?.tokens);
    expect(Number(match?.[1])).toBeGreaterThan(cost.payload?.tokens ?? Infinity);
  });

  it.each(Object.keys(RESULTS))('suggests fewer tokens than the payload, or nothing, on %s', (name) => {
    const cost = analyse(name);
    const { tokens, share } = cost.suggestion;
    if (tokens === null) {
      expect(cost.suggestion.note).not.toBeNull();
      return;
    }
    expect(tokens).toBeLessThan(cost.payload?.tokens ?? 0);
    expect(share).toBeLessThan(1);
  });
});

describe('the suggestion is a FieldSpec[] that defineProjection takes as is', () => {
  it.each(['stripe error', 'stripe list with error objects', 'github pulls'])('on %s: defineProjection(spec).apply gives exactly the token figure', (name) => {
    const cost = analyse(name);
    const payload = cost.payload;
    if (payload === null || cost.suggestion.tokens === null) throw new Error(`${name} has no suggestion`);
    const root = payloadOf(name);
    const node = at(root, payload.path);
    const records = (payload.shape === 'records' ? node : [node]) as unknown[];
    const projection = defineProjection(cost.suggestion.spec, { sample: records });
    expect(projection.outputNames).toEqual(cost.suggestion.fields.flatMap((field) => (field.truncatedFlag === undefined ? [field.name] : [field.name, field.truncatedFlag])));
    const projected = records.map((record) => projection.apply(record));
    const rebuilt = structuredClone(root) as Record<string, unknown>;
    const value = payload.shape === 'records' ? projected : projected[0];
    if (payload.path.length === 0) {
      expect(countTokens(JSON.stringify(value))).toBe(cost.suggestion.tokens);
      return;
    }
    const parent = at(rebuilt, payload.path.slice(0, -1)) as Record<string, unknown>;
    parent[payload.path[payload.path.length - 1] ?? ''] = value;
    expect(countTokens(JSON.stringify(rebuilt))).toBe(cost.suggestion.tokens);
  });

  it('caps long text with maxChars, the flag defineProjection adds named in the suggestion', () => {
    const cost = analyse('github pulls');
    const body = cost.suggestion.fields.find((field) => field.name === 'body');
    expect(body).toMatchObject({ previewChars: 280, truncatedFlag: 'body_truncated' });
    expect(cost.suggestion.spec).toContainEqual({ path: 'body', maxChars: 280 });
    expect(cost.suggestion.spec).toContainEqual({ path: 'user.login', as: 'user' });
  });
});
