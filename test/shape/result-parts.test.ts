import { describe, expect, it } from 'vitest';
import { isMcpctxError } from '../../src/errors/index.js';
import { toolResultCost, toolResultParts, toolResultTokensWithin } from '../../src/shape/index.js';
import { base64DecodedBytes } from '../../src/shape/_result-parts.js';
import { countTokens } from '../../src/tokens/index.js';

const PNG_BYTES = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

function codeOf(action: () => unknown): string {
  try {
    action();
  } catch (error) {
    if (isMcpctxError(error)) return error.code;
    throw error;
  }
  return 'no error';
}

describe('toolResultParts', () => {
  it('lists every part in wire order: content blocks by index, then structuredContent', () => {
    const link = { type: 'resource_link', uri: 'file:///notes.md', name: 'notes', description: 'The notes' };
    const parts = toolResultParts({
      content: [
        { type: 'text', text: 'héllo' },
        { type: 'resource', resource: { uri: 'file:///a.txt', mimeType: 'text/plain', text: 'embedded' } },
        { type: 'resource', resource: { uri: 'file:///a.bin', blob: PNG_BYTES.toString('base64') } },
        { type: 'image', data: PNG_BYTES.toString('base64'), mimeType: 'image/png' },
        { type: 'audio', data: 'QUJD', mimeType: 'audio/wav' },
        link,
        { type: 'future_block', payload: { z: 1, a: 2 } },
      ],
      structuredContent: { z: 1, a: [1, 2] },
    });
    expect(parts.map((part) => [part.where, part.block, part.type, part.kind])).toEqual([
      ['content[0]', 0, 'text', 'text'],
      ['content[1]', 1, 'resource', 'resource-text'],
      ['content[2]', 2, 'resource', 'resource-blob'],
      ['content[3]', 3, 'image', 'image'],
      ['content[4]', 4, 'audio', 'audio'],
      ['content[5]', 5, 'resource_link', 'resource-link'],
      ['content[6]', 6, 'future_block', 'other'],
      ['structuredContent', null, 'structuredContent', 'structured'],
    ]);
    const [text, resource, blob, image, audio, linkPart, other, structured] = parts;
    expect(text).toMatchObject({ text: 'héllo', bytes: 6 });
    expect(resource).toMatchObject({ text: 'embedded', bytes: 8 });
    // Binary data is paid for by its decoded bytes, never read as text.
    expect(blob).toMatchObject({ text: null, bytes: PNG_BYTES.length });
    expect(image).toMatchObject({ text: null, bytes: PNG_BYTES.length });
    expect(audio).toMatchObject({ text: null, bytes: 3 });
    // A link reaches the model whole (name, uri, description): its compact JSON, key order kept.
    expect(linkPart?.text).toBe(JSON.stringify(link));
    expect(other?.text).toBe('{"type":"future_block","payload":{"z":1,"a":2}}');
    expect(structured?.text).toBe('{"z":1,"a":[1,2]}');
    // A binary part's other fields are text a client may show: its JSON without the base64.
    expect(blob?.fields).toBe('{"type":"resource","resource":{"uri":"file:///a.bin"}}');
    expect(image?.fields).toBe('{"type":"image","mimeType":"image/png"}');
    expect(audio?.fields).toBe('{"type":"audio","mimeType":"audio/wav"}');
    expect([text, resource, linkPart, other, structured].map((part) => part?.fields)).toEqual([null, null, null, null, null]);
  });

  it('reads a malformed block as its compact JSON, so nothing a client may pass on is left out', () => {
    const parts = toolResultParts({ content: ['loose string', null, { type: 'text', text: 42 }, { type: 'image' }, { type: 'resource', resource: {} }] });
    expect(parts.map((part) => [part.kind, part.type, part.text])).toEqual([
      ['other', 'unknown', '"loose string"'],
      ['other', 'unknown', 'null'],
      ['other', 'text', '{"type":"text","text":42}'],
      ['other', 'image', '{"type":"image"}'],
      ['other', 'resource', '{"type":"resource","resource":{}}'],
    ]);
  });

  it('has no parts for an empty result, and ignores content that is not an array', () => {
    expect(toolResultParts({})).toEqual([]);
    expect(toolResultParts({ content: 'text?' })).toEqual([]);
    expect(toolResultParts({ content: [], structuredContent: undefined })).toEqual([]);
  });

  it('refuses what is not a result, or has no JSON form, with an McpctxError naming the part', () => {
    for (const bad of [null, 'text', 42, [{ type: 'text', text: 'x' }]]) expect(codeOf(() => toolResultParts(bad))).toBe('INVALID_ARGUMENT');
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(codeOf(() => toolResultParts({ structuredContent: cyclic }))).toBe('INVALID_ARGUMENT');
    expect(codeOf(() => toolResultParts({ content: [{ type: 'x', n: 1n }] }))).toBe('INVALID_ARGUMENT');
    let deep: unknown = 0;
    for (let depth = 0; depth < 200_000; depth += 1) deep = [deep];
    try {
      toolResultParts({ structuredContent: { deep } });
      throw new Error('expected a refusal');
    } catch (error) {
      expect(isMcpctxError(error, 'INVALID_ARGUMENT')).toBe(true);
      expect((error as Error).message).toContain('structuredContent');
    }
  });
});

describe('toolResultCost', () => {
  it('counts every text part exactly and sums binary parts by decoded bytes', () => {
    const result = {
      content: [
        { type: 'text', text: 'lorem ipsum '.repeat(50) },
        { type: 'image', data: PNG_BYTES.toString('base64'), mimeType: 'image/png' },
        { type: 'resource_link', uri: 'https://example.com/a', name: 'a' },
      ],
      structuredContent: { answer: '<|endoftext|> is text' },
    };
    const cost = toolResultCost(result);
    const texts = ['lorem ipsum '.repeat(50), JSON.stringify(result.content[2]), JSON.stringify(result.structuredContent)];
    expect(cost.parts.map((part) => part.tokens)).toEqual([countTokens(texts[0] ?? ''), null, countTokens(texts[1] ?? ''), countTokens(texts[2] ?? '')]);
    expect(cost.textTokens).toBe(texts.reduce((sum, text) => sum + countTokens(text), 0));
    expect(cost.binaryBytes).toBe(PNG_BYTES.length);
    const imageFields = '{"type":"image","mimeType":"image/png"}';
    expect(cost.parts[1]?.fieldTokens).toBe(countTokens(imageFields));
    expect(cost.binaryFieldTokens).toBe(countTokens(imageFields));
  });
});

describe('toolResultTokensWithin', () => {
  const result = {
    content: [
      { type: 'text', text: 'word '.repeat(100) },
      { type: 'image', data: 'QUJD', mimeType: 'image/png', annotations: { audience: ['user'] } },
    ],
    structuredContent: { n: 1 },
  };
  const cost = toolResultCost(result);
  const total = cost.textTokens + cost.binaryFieldTokens;

  it('gives the text tokens of a result, binary fields included, when within the limit, else false', () => {
    expect(toolResultTokensWithin(result, total)).toBe(total);
    expect(toolResultTokensWithin(result, total + 50)).toBe(total);
    expect(toolResultTokensWithin(result, total - 1)).toBe(false);
    expect(toolResultTokensWithin({}, 0)).toBe(0);
  });

  it('refuses a limit that is not a non-negative number with an McpctxError', () => {
    expect(codeOf(() => toolResultTokensWithin(result, -1))).toBe('INVALID_ARGUMENT');
    expect(codeOf(() => toolResultTokensWithin(result, Number.NaN))).toBe('INVALID_ARGUMENT');
  });
});

describe('base64DecodedBytes', () => {
  it('gives the decoded length of standard and url-safe base64, with or without padding and line breaks', () => {
    for (let length = 0; length <= 40; length += 1) {
      const bytes = Buffer.alloc(length, 0xfb);
      const standard = bytes.toString('base64');
      expect(base64DecodedBytes(standard), standard).toBe(length);
      expect(base64DecodedBytes(bytes.toString('base64url'))).toBe(length);
      expect(base64DecodedBytes(standard.replace(/=+$/, ''))).toBe(length);
      expect(base64DecodedBytes(standard.replace(/(.{8})/g, '$1\r\n'))).toBe(length);
    }
  });
});
