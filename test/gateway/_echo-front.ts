// An HTTP front on 127.0.0.1 in front of a fresh echo relay per `start`, closed after each test of
// the file that calls `echoFront()` (or earlier, by `stop`).
import { afterEach } from 'vitest';
import { startHttpFront, type HttpFront, type HttpFrontOptions } from '../../src/gateway/index.js';
import { echoRelay, type EchoRelay } from './_echo-relay.js';

export interface EchoFront {
  start(options?: Partial<HttpFrontOptions>): Promise<HttpFront>;
  stop(): Promise<void>;
  /** The front of the last `start`, until it is stopped. */
  readonly front: HttpFront | undefined;
  /** The relay behind the last `start`. */
  readonly relay: EchoRelay;
}

export function echoFront(): EchoFront {
  let front: HttpFront | undefined;
  let relay = echoRelay();
  const stop = async (): Promise<void> => {
    await front?.close();
    front = undefined;
  };
  afterEach(stop);
  return {
    async start(options = {}) {
      relay = echoRelay();
      front = await startHttpFront({ host: '127.0.0.1', port: 0, onConnection: relay.onConnection, ...options });
      return front;
    },
    stop,
    get front() {
      return front;
    },
    get relay() {
      return relay;
    },
  };
}
