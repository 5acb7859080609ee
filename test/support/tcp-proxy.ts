import { createServer, Socket, type Server } from 'node:net';
import { freePort } from './services.js';

/**
 * A loopback TCP relay to `targetPort`, for cutting one link (e.g. FerretDB → PostgreSQL) while both
 * ends keep running: `cut()` closes the listener and destroys every relayed connection (what a
 * client sees of a killed server: connections dropped, then refused); `restore()` listens again on
 * the same port. Hand-written: node:net's pipe is all it takes, and no proxy package offers the cut.
 */
export interface TcpProxy {
  port: number;
  cut(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(targetPort: number): Promise<TcpProxy> {
  const port = await freePort();
  const sockets = new Set<Socket>();
  let server: Server | undefined;

  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const relay = createServer((client) => {
        const upstream = new Socket();
        for (const socket of [client, upstream]) {
          sockets.add(socket);
          socket.once('close', () => sockets.delete(socket));
          socket.on('error', () => undefined);
        }
        upstream.connect(targetPort, '127.0.0.1');
        client.pipe(upstream).pipe(client);
        client.once('close', () => upstream.destroy());
        upstream.once('close', () => client.destroy());
      });
      relay.once('error', reject);
      relay.listen(port, '127.0.0.1', () => {
        server = relay;
        resolve();
      });
    });

  const cut = async () => {
    const closing = server;
    server = undefined;
    for (const socket of sockets) socket.destroy();
    if (closing) await new Promise<void>((resolve) => closing.close(() => resolve()));
  };

  await listen();
  return { port, cut, restore: listen, close: cut };
}
