// What an SSE stream hands its HTTP response: a POST's quick answer leaves with the headers and
// the end of the stream in one write; headers held back are still sent if the answer is slow; a
// last answer too big for the buffer bound is refused as any other write is.
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SseStream } from '../../src/gateway/front/_sse-writer.js';

/** The calls a stream makes on its response, in order, with what each carried. */
function recordingResponse(initiallyBuffered = 0): { response: ServerResponse; calls: string[] } {
  const calls: string[] = [];
  let headersSent = false;
  const send = (): void => {
    headersSent = true;
  };
  const fake = {
    writableLength: initiallyBuffered,
    get headersSent() {
      return headersSent;
    },
    writeHead: () => calls.push('writeHead'),
    flushHeaders: () => {
      calls.push('flushHeaders');
      send();
    },
    write: (chunk: string) => {
      calls.push(`write ${chunk}`);
      send();
      return true;
    },
    end: (chunk?: string) => {
      calls.push(chunk === undefined ? 'end' : `end ${chunk}`);
      send();
    },
    destroy: () => calls.push('destroy'),
    on: () => fake,
  };
  return { response: fake as unknown as ServerResponse, calls };
}

const LIMITS = { keepAliveMs: 15_000, maxBufferedBytes: 1_000, stallMs: 30_000 };
const EVENT = (json: string): string => `event: message\ndata: ${json}\n\n`;

describe('SseStream', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('with headersDelayMs, a last answer ready in time goes out with the headers and the end in one write', () => {
    vi.useFakeTimers();
    const { response, calls } = recordingResponse();
    const stream = new SseStream(response, {}, { ...LIMITS, headersDelayMs: 20, onGone: () => {} });
    expect(stream.sendLast('{"id":1}')).toBe(true);
    vi.advanceTimersByTime(1_000);
    expect(calls).toEqual(['writeHead', `end ${EVENT('{"id":1}')}`]);
    expect(stream.open).toBe(false);
  });

  it('with headersDelayMs and no answer in time, the headers are sent when the delay is over', () => {
    vi.useFakeTimers();
    const { response, calls } = recordingResponse();
    const stream = new SseStream(response, {}, { ...LIMITS, headersDelayMs: 20, onGone: () => {} });
    vi.advanceTimersByTime(19);
    expect(calls).toEqual(['writeHead']);
    vi.advanceTimersByTime(1);
    expect(calls).toEqual(['writeHead', 'flushHeaders']);
    stream.sendLast('{"id":2}');
    expect(calls).toEqual(['writeHead', 'flushHeaders', `end ${EVENT('{"id":2}')}`]);
  });

  it('without headersDelayMs (a GET stream) the headers are sent at once', () => {
    const { response, calls } = recordingResponse();
    const stream = new SseStream(response, {}, { ...LIMITS, onGone: () => {} });
    expect(calls).toEqual(['writeHead', 'flushHeaders']);
    stream.end();
  });

  it('a last answer that could pass the buffer bound is dropped as a write would be, and the stream is gone', () => {
    const { response, calls } = recordingResponse(900);
    const gone: Array<[string, boolean]> = [];
    const stream = new SseStream(response, {}, { ...LIMITS, headersDelayMs: 20, onGone: (reason, stalled) => gone.push([reason, stalled]) });
    // The fake response does not grow: the bound is crossed by what it already holds.
    (response as unknown as { writableLength: number }).writableLength = 1_001;
    expect(stream.sendLast(`"${'x'.repeat(200)}"`)).toBe(false);
    expect(calls.at(-1)).toBe('destroy');
    expect(gone).toHaveLength(1);
    expect(gone[0]?.[1]).toBe(true);
  });
});
