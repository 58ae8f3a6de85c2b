import { describe, expect, it } from 'vitest';
import { modelFacingFigures, modelFacingText, rawContentFigures } from '../../src/experiment/receipt/_model-facing.js';
import { countTokens, sha256Hex } from '../../src/tokens/index.js';

const result = '{"items":[{"id":"3045","title":"A bug"}],"total_matching":1,"cache":"miss","sourceHash":"abc"}';

describe('modelFacingText', () => {
  it('joins text blocks with a newline and keeps them byte for byte when nothing is dropped', () => {
    const pretty = '{\n  "a": 1\n}';
    expect(modelFacingText([{ type: 'text', text: pretty }, { type: 'text', text: 'second' }], false, [])).toEqual({ text: `${pretty}\nsecond`, empty: false });
  });

  it('drops the named top-level keys of a JSON object text, re-serialized compactly in its own key order', () => {
    const { text } = modelFacingText([{ type: 'text', text: result }], false, ['cache', 'sourceHash']);
    expect(text).toBe('{"items":[{"id":"3045","title":"A bug"}],"total_matching":1}');
  });

  it('drops only top-level keys: a nested key of the same name stays', () => {
    const { text } = modelFacingText([{ type: 'text', text: '{"cache":"hit","inner":{"cache":"kept"}}' }], false, ['cache']);
    expect(text).toBe('{"inner":{"cache":"kept"}}');
  });

  it('keeps an error result, a non-JSON text and a JSON array byte for byte', () => {
    const spaced = '{ "cache": "miss",  "note": "x" }';
    expect(modelFacingText([{ type: 'text', text: spaced }], true, ['cache']).text).toBe(spaced);
    expect(modelFacingText([{ type: 'text', text: 'UNKNOWN_FIELD: no such field' }], false, ['cache']).text).toBe('UNKNOWN_FIELD: no such field');
    expect(modelFacingText([{ type: 'text', text: '[{"cache":1}]' }], false, ['cache']).text).toBe('[{"cache":1}]');
  });

  it('says in band that a non-text block was not forwarded', () => {
    const content = [{ type: 'text', text: 'before' }, { type: 'image', data: 'AAAA', mimeType: 'image/png' }, { type: 'resource', resource: {} }, 42];
    expect(modelFacingText(content, false, []).text).toBe('before\n[image block not forwarded]\n[resource block not forwarded]\n[unknown block not forwarded]');
  });

  it('is empty when content is not an array or holds no text', () => {
    expect(modelFacingText(null, false, [])).toEqual({ text: '', empty: true });
    expect(modelFacingText({ type: 'text', text: 'x' }, false, [])).toEqual({ text: '', empty: true });
    expect(modelFacingText([], false, [])).toEqual({ text: '', empty: true });
  });
});

describe('figures', () => {
  it('rawContentFigures hashes JSON.stringify of the content, and the empty string for null', () => {
    const content = [{ type: 'text', text: 'é' }];
    const json = JSON.stringify(content);
    expect(rawContentFigures(content)).toEqual({ bytes: Buffer.byteLength(json), sha256: sha256Hex(json) });
    expect(rawContentFigures(content).bytes).toBe(json.length + 1); // é is two bytes
    expect(rawContentFigures(null)).toEqual({ bytes: 0, sha256: sha256Hex('') });
  });

  it('modelFacingFigures gives UTF-8 bytes, sha256 and o200k tokens', () => {
    const text = 'Records 1-5 of 30 — <|endoftext|>';
    expect(modelFacingFigures(text)).toEqual({ bytes: Buffer.byteLength(text), sha256: sha256Hex(text), tokens: countTokens(text) });
  });
});
