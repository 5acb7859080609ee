import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/server';
import type { EventStream } from './sse-stream.js';

/**
 * The server side of one legacy 2024-11-05 HTTP+SSE session: responses and notifications go down
 * this process's event stream; the client's POSTs arrive through `receive` (from whichever API
 * process took them, see legacy-sse.ts).
 */
export class SseSessionTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;
  private closed = false;

  constructor(
    private readonly stream: EventStream,
    readonly sessionId: string,
    private readonly endpoint: string,
  ) {
    stream.onClose(() => {
      this.closed = true;
      this.onclose?.();
    });
  }

  /** True once the stream ended: the calls still waiting then were abandoned, not canceled. */
  get isClosed(): boolean {
    return this.closed;
  }

  start(): Promise<void> {
    this.stream.send('endpoint', this.endpoint);
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    this.stream.send('message', JSON.stringify(message));
    return Promise.resolve();
  }

  receive(message: JSONRPCMessage): void {
    this.onmessage?.(message);
  }

  close(): Promise<void> {
    this.stream.close();
    return Promise.resolve();
  }
}
