import { createServer, request, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A counting relay in front of an MCP server, on loopback: every HTTP request a client sends
 * through it is forwarded as is and counted by HTTP method and JSON-RPC method (`POST initialize`,
 * `POST notifications/initialized`, `POST tools/call`, `DELETE`, `GET` for an event stream…), so a
 * benchmark shows what a run really sends instead of assuming it. Hand-written: node:http's
 * request and pipe are all a relay takes. Only for counting runs: the hop adds its own latency.
 */
export interface RequestCensus {
  url: string;
  counts(): Record<string, number>;
  reset(): void;
  close(): Promise<void>;
}

function rpcMethods(body: Buffer): string[] {
  try {
    const parsed = JSON.parse(body.toString('utf8')) as unknown;
    return (Array.isArray(parsed) ? parsed : [parsed]).map((message) =>
      typeof message === 'object' && message !== null && typeof (message as { method?: unknown }).method === 'string'
        ? (message as { method: string }).method
        : 'response',
    );
  } catch {
    return [];
  }
}

export async function startRequestCensus(targetUrl: string): Promise<RequestCensus> {
  const target = new URL(targetUrl);
  const counts: Record<string, number> = {};
  const relay = async (req: IncomingMessage, res: import('node:http').ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const methods = rpcMethods(body);
    const key = methods.length > 0 ? `${req.method} ${methods.join('+')}` : String(req.method);
    counts[key] = (counts[key] ?? 0) + 1;
    const upstream = request(
      { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: { ...req.headers, host: target.host } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    res.on('close', () => upstream.destroy());
    upstream.end(body);
  };
  const server = createServer((req, res) => void relay(req, res).catch(() => res.destroy()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${target.pathname}`,
    counts: () => ({ ...counts }),
    reset: () => Object.keys(counts).forEach((key) => delete counts[key]),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
