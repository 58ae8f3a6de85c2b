import { describe, expect, it } from 'vitest';
import { McpctxError } from '../../src/errors/index.js';
import { SseReader, type SseEvent } from '../../src/mcp/index.js';

function feed(reader: SseReader, ...chunks: string[]): SseEvent[] {
  return chunks.flatMap((chunk) => reader.push(Buffer.from(chunk, 'utf8')));
}

/** Every way of cutting `text` into two chunks gives the same events as one chunk. */
function eventsAtEverySplit(text: string): SseEvent[][] {
  const bytes = Buffer.from(text, 'utf8');
  const results: SseEvent[][] = [];
  for (let cut = 0; cut <= bytes.length; cut += 1) {
    const reader = new SseReader();
    results.push([...reader.push(bytes.subarray(0, cut)), ...reader.push(bytes.subarray(cut))]);
  }
  return results;
}

describe('SseReader', () => {
  it('joins data lines with newlines and reads event and id fields', () => {
    const events = feed(new SseReader(), 'event: message\nid: 42\ndata: {"a":\ndata: 1}\n\n');
    expect(events).toEqual([{ event: 'message', id: '42', data: '{"a":\n1}', dataBytes: 8 }]);
  });

  it('takes LF, CR and CRLF line ends, split anywhere across chunks', () => {
    for (const end of ['\n', '\r', '\r\n']) {
      const text = `: comment${end}data: first${end}${end}data:second${end}event: other${end}${end}`;
      for (const events of eventsAtEverySplit(text)) {
        expect(events).toEqual([
          { event: 'message', data: 'first', dataBytes: 5 },
          { event: 'other', data: 'second', dataBytes: 6 },
        ]);
      }
    }
  });

  it('skips comments, unknown fields, retry and events without data; drops a leading BOM', () => {
    const events = feed(new SseReader(), '\uFEFF: keep-alive\nretry: 10\nfoo: bar\nevent: ping\n\n', 'data\n\n');
    expect(events).toEqual([{ event: 'message', data: '', dataBytes: 0 }]);
  });

  it('does not dispatch an event before its blank line', () => {
    const reader = new SseReader();
    expect(feed(reader, 'data: {"x":1}\n')).toEqual([]);
    expect(feed(reader, '\n')).toEqual([{ event: 'message', data: '{"x":1}', dataBytes: 7 }]);
  });

  it('refuses an event over the limit while it is still arriving (FRAME_TOO_LARGE)', () => {
    const reader = new SseReader(1_000);
    let error: unknown;
    try {
      // Many short data lines: no single line is long, the event is; and its blank line never comes.
      for (let line = 0; line < 100; line += 1) reader.push(Buffer.from(`data: ${'x'.repeat(50)}\n`));
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(McpctxError);
    expect((error as McpctxError).code).toBe('FRAME_TOO_LARGE');
    expect(reader.bufferedBytes).toBeLessThanOrEqual(1_000);
  });

  it('refuses one endless line over the limit before its end arrives', () => {
    const reader = new SseReader(1_000);
    expect(() => {
      for (let chunk = 0; chunk < 100; chunk += 1) reader.push(Buffer.from('y'.repeat(100)));
    }).toThrow(/more than 1000 bytes/);
  });

  it('accepts an event of exactly the limit', () => {
    const data = 'z'.repeat(1_000);
    expect(feed(new SseReader(1_000), `data: ${data}\n\n`)).toEqual([{ event: 'message', data, dataBytes: 1_000 }]);
  });

  it('refuses bytes that are not UTF-8 (INVALID_FRAME)', () => {
    expect(() => new SseReader().push(Buffer.from([0x64, 0x61, 0x74, 0x61, 0x3a, 0xff, 0x0a]))).toThrow(/not valid UTF-8/);
  });
});
