import { describe, expect, it } from 'vitest';
import { isMcpctxError } from '../../src/errors/index.js';
import { FrameSplitter, Redactor } from '../../src/mcp/index.js';
import { BoundedTail } from '../../src/mcp/_tail.js';

describe('FrameSplitter', () => {
  it('splits frames across chunk boundaries and strips CRLF', () => {
    const splitter = new FrameSplitter(1024);
    expect(splitter.push(Buffer.from('{"a":1}\n{"b"'))).toEqual(['{"a":1}']);
    expect(splitter.push(Buffer.from(':2}\r\n\n'))).toEqual(['{"b":2}', '']);
    expect(splitter.bufferedBytes).toBe(0);
  });

  it('keeps a multi-byte character cut between chunks intact', () => {
    const bytes = Buffer.from('"é😀"\n');
    const splitter = new FrameSplitter(1024);
    const frames = [...splitter.push(bytes.subarray(0, 2)), ...splitter.push(bytes.subarray(2, 5)), ...splitter.push(bytes.subarray(5))];
    expect(frames).toEqual(['"é😀"']);
  });

  it('refuses a line over the limit as soon as it is over, newline or not', () => {
    const splitter = new FrameSplitter(10);
    expect(splitter.push(Buffer.from('12345'))).toEqual([]);
    let caught: unknown;
    try {
      splitter.push(Buffer.from('678901'));
    } catch (error) {
      caught = error;
    }
    expect(isMcpctxError(caught, 'FRAME_TOO_LARGE')).toBe(true);
    expect((caught as { data: { lineEnded: boolean } }).data.lineEnded).toBe(false);
  });

  it('refuses a complete line over the limit, and accepts one exactly at it', () => {
    expect(new FrameSplitter(10).push(Buffer.from('0123456789\n'))).toEqual(['0123456789']);
    expect(() => new FrameSplitter(10).push(Buffer.from('0123456789A\n'))).toThrow(/11-byte message; the limit is 10/);
  });

  it('refuses invalid UTF-8 instead of replacing it, naming the offset', () => {
    const line = Buffer.concat([Buffer.from('{"d":"ab'), Buffer.from([0xc3, 0x28]), Buffer.from('"}\n')]);
    let caught: unknown;
    try {
      new FrameSplitter(1024).push(line);
    } catch (error) {
      caught = error;
    }
    expect(isMcpctxError(caught, 'INVALID_FRAME')).toBe(true);
    expect((caught as { data: { offset: number } }).data.offset).toBe(8);
  });
});

describe('BoundedTail', () => {
  it('keeps only the last bytes however much flows through', () => {
    const tail = new BoundedTail(16);
    for (let index = 0; index < 1000; index += 1) tail.push(Buffer.from(`line ${index}\n`));
    expect(tail.text()).toBe('ne 998\nline 999\n');
    expect(Buffer.byteLength(tail.text())).toBeLessThanOrEqual(16);
    expect(tail.totalBytes).toBeGreaterThan(8000);
  });

  it('drops a character cut in half at the start of the window', () => {
    const tail = new BoundedTail(5);
    tail.push(Buffer.from('xxé1234'));
    expect(tail.text()).toBe('1234');
  });

  it('handles one chunk larger than the limit', () => {
    const tail = new BoundedTail(4);
    tail.push(Buffer.alloc(100, 'a'));
    tail.push(Buffer.from('bc'));
    expect(tail.text()).toBe('aabc');
  });
});

describe('Redactor.window', () => {
  const secret = 'sk-live-0123456789abcdef';
  const redactor = new Redactor({ API_KEY: secret });

  it('replaces whole values and the piece of one cut by either edge of the window', () => {
    expect(redactor.window(`${secret.slice(5)} middle ${secret} end ${secret.slice(0, 9)}`, { cutAtStart: true })).toBe(
      '[redacted:API_KEY] middle [redacted:API_KEY] end [redacted:API_KEY]',
    );
  });

  it('leaves the start alone when the window was not cut there', () => {
    expect(redactor.window(`${secret.slice(5)} x`, { cutAtStart: false })).toBe(`${secret.slice(5)} x`);
  });

  it('keeps a long value out of a bounded stderr tail, wherever the window cuts it', async () => {
    const { BoundedStdioTransport } = await import('../../src/mcp/index.js');
    const { randomBytes } = await import('node:crypto');
    const long = `canary-${randomBytes(5000).toString('hex')}`;
    const transport = new BoundedStdioTransport({ command: 'true', env: { LONG_SECRET: long } }, { stderrTailBytes: 64 });
    const tail = (transport as unknown as { stderr: BoundedTail }).stderr;
    const leaks = (text: string): string[] => {
      const pieces: string[] = [];
      for (let start = 0; start + 8 <= text.length; start += 1) if (long.includes(text.slice(start, start + 8))) pieces.push(text.slice(start, start + 8));
      return pieces;
    };
    for (const filler of [0, 1, 13, 63, 64, 65, 5000]) {
      tail.push(Buffer.from(`${'x'.repeat(filler)} ${long} tail ${long.slice(0, 5000)}`));
      expect(leaks(transport.stderrTail)).toEqual([]);
      expect(Buffer.byteLength(transport.stderrTail)).toBeLessThanOrEqual(64);
    }
  });
});
