/**
 * A scripted OpenAI-compatible chat-completions server for tests (no model is reachable here).
 * Real HTTP on 127.0.0.1, port 0, so the real `openai` client is exercised end to end: headers,
 * retries on 429/5xx with `retry-after`, timeouts, aborts.
 *
 *   const llm = await startFakeOpenAiServer();
 *   llm.enqueue({ toolCalls: [{ name: 'echo', arguments: { message: 'hi' } }] }, { text: 'done' });
 *   … point a provider at llm.baseURL …
 *   expect(llm.requests[1].body.messages.at(-1)).toMatchObject({ role: 'tool' });
 *   await llm.close();
 *
 * Each request takes the next scripted reply, in order; a reply may be a function of the
 * request (to answer with what a tool returned). No reply left → 500 with `x-should-retry: false`.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ScriptedUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens?: number;
}

interface ReplyTiming {
  /** Wait this long before answering (a slow model); ends early if the client goes away. */
  delayMs?: number;
}

export interface ScriptedToolCall {
  name: string;
  /** An object is sent as JSON; a string is sent as is (to script malformed arguments). */
  arguments: string | Record<string, unknown>;
  id?: string;
}

export type ScriptedReply =
  | (ReplyTiming & { text: string; usage?: ScriptedUsage; model?: string; finishReason?: string })
  | (ReplyTiming & { toolCalls: ScriptedToolCall[]; text?: string; usage?: ScriptedUsage; model?: string })
  | (ReplyTiming & { status: number; headers?: Record<string, string>; message?: string });

export type ReplyScript = ScriptedReply | ((request: RecordedRequest) => ScriptedReply);

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body (chat-completions params). */
  body: ChatRequestBody;
  /** The client closed the connection before the reply was sent (abort, timeout). */
  aborted: boolean;
}

export interface ChatRequestBody {
  model: string;
  messages: Array<{
    role: string;
    content?: string | null;
    tool_call_id?: string;
    tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
  }>;
  tools?: Array<{ type: string; function: { name: string; description?: string; parameters: Record<string, unknown> } }>;
  response_format?: { type: string; json_schema?: { name: string; schema: Record<string, unknown> } };
  temperature?: number;
  max_tokens?: number;
  [field: string]: unknown;
}

export interface FakeOpenAiServer {
  /** Give this to the client / provider (ends in `/v1`). */
  baseURL: string;
  requests: RecordedRequest[];
  enqueue(...replies: ReplyScript[]): void;
  /** Scripted replies not yet used. */
  remaining(): number;
  /** Forgets the recorded requests and any reply left unused (between tests). */
  reset(): void;
  /** Resolves once `count` requests have arrived. */
  waitForRequests(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

const DEFAULT_USAGE: ScriptedUsage = { prompt_tokens: 10, completion_tokens: 5 };

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function completionOf(reply: Exclude<ScriptedReply, { status: number }>, request: ChatRequestBody, nextId: () => string) {
  const usage = reply.usage ?? DEFAULT_USAGE;
  const toolCalls = 'toolCalls' in reply ? reply.toolCalls : [];
  const message: Record<string, unknown> = { role: 'assistant', content: reply.text ?? null, refusal: null };
  if (toolCalls.length > 0) {
    message.tool_calls = toolCalls.map((call) => ({
      id: call.id ?? nextId(),
      type: 'function',
      function: { name: call.name, arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments) },
    }));
  }
  const finishReason = 'finishReason' in reply && reply.finishReason ? reply.finishReason : toolCalls.length > 0 ? 'tool_calls' : 'stop';
  return {
    id: `chatcmpl-${nextId()}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: reply.model ?? request.model,
    choices: [{ index: 0, message, finish_reason: finishReason, logprobs: null }],
    usage: { ...usage, total_tokens: usage.total_tokens ?? usage.prompt_tokens + usage.completion_tokens },
  };
}

/** Sleeps, but wakes as soon as the client goes away (so an aborted request ends at once). */
function delay(ms: number, res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    res.once('close', done);
    function done() {
      clearTimeout(timer);
      res.off('close', done);
      resolve();
    }
  });
}

export async function startFakeOpenAiServer(): Promise<FakeOpenAiServer> {
  const queue: ReplyScript[] = [];
  const requests: RecordedRequest[] = [];
  const waiters: Array<() => void> = [];
  let ids = 0;
  const nextId = () => `call_${(ids += 1)}`;

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '').split('?')[0];
    const raw = await readBody(req);
    if (req.method !== 'POST' || path !== '/v1/chat/completions') {
      return sendJson(res, 404, {
        error: { message: `fake OpenAI server: no route ${req.method} ${path}`, type: 'invalid_request_error' },
      });
    }
    const recorded: RecordedRequest = {
      method: req.method,
      path,
      headers: req.headers,
      body: JSON.parse(raw) as ChatRequestBody,
      aborted: false,
    };
    requests.push(recorded);
    res.once('close', () => {
      if (!res.writableFinished) recorded.aborted = true;
    });
    waiters.splice(0).forEach((wake) => wake());
    const script = queue.shift();
    if (!script) {
      return sendJson(
        res,
        500,
        { error: { message: 'fake OpenAI server: no scripted reply left', type: 'server_error' } },
        { 'x-should-retry': 'false' },
      );
    }
    const reply = typeof script === 'function' ? script(recorded) : script;
    if (reply.delayMs) await delay(reply.delayMs, res);
    if ('status' in reply) {
      const body = { error: { message: reply.message ?? `scripted status ${reply.status}`, type: 'scripted_error', code: null } };
      return sendJson(res, reply.status, body, reply.headers);
    }
    sendJson(res, 200, completionOf(reply, recorded.body, nextId));
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) =>
      sendJson(res, 500, { error: { message: String(error), type: 'server_error' } }, { 'x-should-retry': 'false' }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    enqueue: (...replies) => void queue.push(...replies),
    remaining: () => queue.length,
    reset: () => {
      queue.length = 0;
      requests.length = 0;
    },
    async waitForRequests(count, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (requests.length < count) {
        if (Date.now() > deadline) throw new Error(`fake OpenAI server: ${requests.length} of ${count} requests within ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 50);
        });
      }
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
