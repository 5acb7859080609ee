import type { Response as ExpressResponse } from 'express';

/** SSE comments keep proxies and clients from timing an idle stream out. */
const KEEP_ALIVE_MS = 15_000;

export interface EventStream {
  send(event: string, data: string): void;
  onClose(listener: () => void): void;
  close(): void;
}

/** Starts a `text/event-stream` answer on `res`, with keep-alives, until either side closes it. */
export function openEventStream(res: ExpressResponse): EventStream {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform', connection: 'keep-alive' });
  res.flushHeaders();
  const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), KEEP_ALIVE_MS);
  const listeners: Array<() => void> = [];
  let closed = false;
  const finish = () => {
    if (closed) return;
    closed = true;
    clearInterval(keepAlive);
    for (const listener of listeners) listener();
  };
  res.once('close', finish);
  return {
    send(event, data) {
      if (!closed) res.write(`event: ${event}\ndata: ${data}\n\n`);
    },
    onClose(listener) {
      if (closed) listener();
      else listeners.push(listener);
    },
    close() {
      finish();
      res.end();
    },
  };
}
