import { describe, expect, it } from 'vitest';
import { capText, defineProjection } from '../../src/shape/index.js';

const sample = [
  { number: 1, title: 'Fix', user: { login: 'ann', id: 7 }, body: 'x'.repeat(500), secret: 'token' },
  { number: 2, title: 'Add', user: null, body: null, milestone: { title: 'v1' } },
];

describe('defineProjection', () => {
  it('returns only allowlisted fields, renamed, in order, with the same keys for every record', () => {
    const projection = defineProjection(['number', { path: 'user.login', as: 'author' }, 'milestone.title'], { sample });
    expect(projection.outputNames).toEqual(['number', 'author', 'milestone.title']);
    expect(sample.map((record) => projection.apply(record))).toEqual([
      { number: 1, author: 'ann', 'milestone.title': null },
      { number: 2, author: null, 'milestone.title': 'v1' },
    ]);
  });

  it('never returns a field outside the allowlist, even one added at call time', () => {
    const projection = defineProjection(['number'], { sample });
    const projected = projection.apply({ number: 3, secret: 'leak', title: 'x' });
    expect(Object.keys(projected)).toEqual(['number']);
  });

  it('caps long text with a truncation flag', () => {
    const projection = defineProjection(['number', { path: 'body', maxChars: 280 }], { sample });
    const [first, second] = sample.map((record) => projection.apply(record));
    expect(first).toEqual({ number: 1, body: 'x'.repeat(280), body_truncated: true });
    expect(second).toEqual({ number: 2, body: null, body_truncated: false });
    expect(projection.apply({ number: 4, body: 'short' })).toEqual({ number: 4, body: 'short', body_truncated: false });
  });

  it('gives the same projection with another cap, refusing a field that is not capped', () => {
    const projection = defineProjection(['number', { path: 'body', maxChars: 280 }], { sample });
    expect(projection.withCaps({ body: 10 }).apply(sample[0])).toEqual({ number: 1, body: 'x'.repeat(10), body_truncated: true });
    expect(projection.apply(sample[0])).toMatchObject({ body: 'x'.repeat(280) });
    expect(() => projection.withCaps({ number: 5 })).toThrow(/not a capped field/);
    expect(() => projection.withCaps({ body: 0 })).toThrow(/maxChars/);
  });

  it('rejects unknown paths when defined, not when called', () => {
    expect(() => defineProjection(['number', 'user.name'], { sample })).toThrow(/Unknown field path "user.name"/);
    expect(() => defineProjection(['nope'], { knownPaths: ['number'] })).toThrow(/INVALID|Unknown field path/);
    expect(() => defineProjection(['number'], {})).toThrow(/knownPaths or sample/);
  });

  it('rejects clashing output names and bad caps', () => {
    expect(() => defineProjection(['title', { path: 'user.login', as: 'title' }], { sample })).toThrow(/produced twice/);
    expect(() => defineProjection([{ path: 'body', maxChars: 10 }, { path: 'title', as: 'body_truncated' }], { sample })).toThrow(/produced twice/);
    expect(() => defineProjection([{ path: 'body', maxChars: 0 }], { sample })).toThrow(/maxChars/);
    expect(() => defineProjection([], { sample })).toThrow(/at least one field/);
  });
});

describe('capText', () => {
  it('never splits a surrogate pair', () => {
    const text = `ab${'😀'.repeat(3)}`;
    const capped = capText(text, 3);
    expect(capped).toEqual({ text: 'ab', truncated: true });
    expect(capText(text, 4)).toEqual({ text: 'ab😀', truncated: true });
    expect(capText('abc', 3)).toEqual({ text: 'abc', truncated: false });
  });
});

describe('inherited properties and unusual keys', () => {
  const data = JSON.parse('[{"id":1,"__proto__":"own","labels.v1":"dotted","labels":{"v1":"nested"},"constructor":"c"},{"id":2}]') as unknown[];

  it('reads only own keys: a record without "constructor" or "toString" has null there', () => {
    const projection = defineProjection(['id', 'constructor', { path: 'toString', as: 'text' }], { knownPaths: ['id', 'constructor', 'toString'] });
    expect(projection.apply(data[1])).toEqual({ id: 2, constructor: null, text: null });
    expect(projection.apply(data[0])).toEqual({ id: 1, constructor: 'c', text: null });
  });

  it('keeps a cap on a field named like an Object method when other caps are given', () => {
    const projection = defineProjection([{ path: 'constructor', maxChars: 1 }, { path: 'id' }], { sample: data });
    expect(projection.withCaps({}).apply({ constructor: 'long', id: 1 })).toEqual({ constructor: 'l', constructor_truncated: true, id: 1 });
  });

  it('refuses "__proto__" as an output name at definition, and reads a "__proto__" key renamed', () => {
    expect(() => defineProjection(['__proto__'], { sample: data })).toThrow(/"__proto__" cannot be an output name.*rename it with "as"/);
    expect(() => defineProjection([{ path: 'id', as: '__proto__' }], { sample: data })).toThrow(/cannot be an output name/);
    const renamed = defineProjection([{ path: '__proto__', as: 'proto' }], { sample: data }).apply(data[0]);
    expect(renamed).toEqual({ proto: 'own' });
    expect(Object.getPrototypeOf(renamed)).toBe(Object.prototype);
  });

  it('names a key that contains dots by its list of keys, and says so when a dot path cannot reach it', () => {
    const projection = defineProjection([{ path: ['labels.v1'], as: 'flat' }, 'labels.v1'], { sample: data });
    expect(projection.apply(data[0])).toEqual({ flat: 'dotted', 'labels.v1': 'nested' });
    expect(() => defineProjection(['labels.v1'], { sample: [{ 'labels.v1': 'x' }] })).toThrow(
      /Field path "labels.v1" names a key that contains a dot \(\["labels.v1"\]\).*\{ path: \["labels.v1"\] \}/,
    );
    expect(defineProjection([{ path: ['a.b'] }], { knownPaths: [['a.b']] }).apply({ 'a.b': 1 })).toEqual({ 'a.b': 1 });
    expect(() => defineProjection([{ path: [] }], { sample: data })).toThrow(/non-empty list/);
  });
});
