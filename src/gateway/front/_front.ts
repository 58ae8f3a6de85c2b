// The seam between the relay and whatever faces the client (stdio pipe or streamable HTTP).
// Messages cross it as parsed objects with their key order intact: the relay forwards them
// byte-faithfully, so no schema ever touches them here.

export type JsonRpcMessage = Record<string, unknown>;

export interface FrontSendOptions {
  /** The client request this message belongs to: its response, progress, or a server request made while serving it. */
  relatedRequestId?: string | number;
}

/** One client connection (an HTTP session or the stdio pipe), as the relay sees it. */
export interface FrontConnection {
  /** Set by the relay: every message from the client, parsed, key order kept. */
  onmessage?: (message: JsonRpcMessage) => void;
  /** Set by the relay: the connection ended (client DELETE, idle timeout, gateway close). */
  onclose?: (reason: string) => void;
  /**
   * Sends to the client. Bounded; rejects with TRANSPORT_CLOSED when the client is gone.
   * relatedRequestId: the client request it belongs to (its response, progress or a server
   * request made while serving it).
   */
  send(message: JsonRpcMessage, options?: FrontSendOptions): Promise<void>;
  /**
   * Who the client proved to be, the same for every session it opens on any gateway instance (a
   * hash of its bearer token); undefined where it proved nothing (stdio, loopback without a token).
   */
  readonly principal?: string;
  close(): Promise<void>;
}
