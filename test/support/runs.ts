import { expect } from '@jest/globals';
import type { FixtureServer, FixtureTool } from '#mcp/testing';
import type { LogItem, RunStreamEvent, RunView } from '#workflow/nest';
import { api } from './http.js';
import { startStack, type TestStack } from './stack.js';

/** Recovery timings short enough for tests (production defaults are seconds to tens of seconds). */
export const FAST_RECOVERY: Record<string, string> = {
  RUN_LOCK_DURATION_MS: '2000',
  RUN_STALLED_INTERVAL_MS: '1000',
  RUN_SWEEP_INTERVAL_MS: '300',
  RUN_REQUEUE_AFTER_MS: '1000',
  WORKER_SHUTDOWN_GRACE_MS: '1000',
};

export function startRunStack(overrides: Record<string, string> = {}, options = { worker: true }): Promise<TestStack> {
  return startStack({ ...FAST_RECOVERY, ...overrides }, options);
}

export interface Problem {
  path: string;
  code: string;
  message: string;
}

export async function registerToolset(apiUrl: string, url: string, name = 'fixture'): Promise<string> {
  const res = await api<{ id: string }>(apiUrl, 'POST', '/toolsets', { name, url });
  expect(res.status).toBe(201);
  return res.body.id;
}

export async function createWorkflow(apiUrl: string, definition: Record<string, unknown>): Promise<string> {
  const res = await api<{ id: string; errors?: Problem[] }>(apiUrl, 'POST', '/workflows', definition);
  if (res.status !== 201) throw new Error(`workflow not created (${res.status}): ${JSON.stringify(res.body)}`);
  return res.body.id;
}

export async function startRun(
  apiUrl: string,
  workflowId: string,
  body: Record<string, unknown> = {},
  query = '',
  headers: Record<string, string> = {},
) {
  return api<RunView & { code?: string; errors?: Problem[] }>(apiUrl, 'POST', `/workflows/${workflowId}/runs${query}`, body, headers);
}

const TERMINAL = new Set(['succeeded', 'failed', 'canceled']);

/** Polls `GET /runs/:id` until `until` holds (default: a terminal status). */
export async function waitForRun(
  apiUrl: string,
  runId: string,
  timeoutMs = 15_000,
  until = (run: RunView) => TERMINAL.has(run.status),
): Promise<RunView> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await api<RunView>(apiUrl, 'GET', `/runs/${runId}`);
    if (res.status === 200 && until(res.body)) return res.body;
    if (Date.now() > deadline) throw new Error(`run ${runId} still ${res.body.status} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Runs a workflow and waits for its end with `?wait=`. */
export async function runToEnd(apiUrl: string, workflowId: string, inputs: Record<string, unknown> = {}): Promise<RunView> {
  const res = await startRun(apiUrl, workflowId, { inputs }, '?wait=20000');
  expect([200, 202]).toContain(res.status);
  return res.status === 200 ? res.body : waitForRun(apiUrl, res.body.id);
}

/** Every log item of a run, following `nextCursor`. */
export async function allLogs(apiUrl: string, runId: string, limit = 100): Promise<LogItem[]> {
  const items: LogItem[] = [];
  let cursor: string | null = null;
  do {
    const res: { status: number; body: { items: LogItem[]; nextCursor: string | null } } = await api(
      apiUrl,
      'GET',
      `/runs/${runId}/logs?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`,
    );
    expect(res.status).toBe(200);
    items.push(...res.body.items);
    cursor = res.body.nextCursor;
  } while (cursor);
  return items;
}

/** Reads an SSE stream to its end (the server closes it after `run.finished`). */
export async function readEvents(url: string, timeoutMs = 15_000, onEvent?: (event: RunStreamEvent) => void): Promise<RunStreamEvent[]> {
  const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
  const events: RunStreamEvent[] = [];
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const name = /^event: (.+)$/m.exec(block)?.[1];
      const data = /^data: (.+)$/m.exec(block)?.[1];
      if (!name || !data) continue;
      const event = JSON.parse(data) as RunStreamEvent;
      expect(event.type).toBe(name);
      events.push(event);
      onEvent?.(event);
    }
  }
  return events;
}

/** Sessions close a moment after the run ends (DELETE in flight, slow on a loaded machine): wait for the server to see zero. */
export async function expectNoSessions(...servers: FixtureServer[]): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (servers.some((server) => server.sessions() > 0) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  for (const server of servers) expect(server.sessions()).toBe(0);
}

const object = (properties: Record<string, unknown>, required: string[] = []) => ({ type: 'object', properties, required });

/** Fails (isError) its first `failures` calls, then answers. */
export function flakyTool(failures: number): FixtureTool {
  let calls = 0;
  return {
    name: 'flaky',
    inputSchema: object({}),
    handler: () => {
      calls += 1;
      return calls <= failures
        ? { isError: true, content: [{ type: 'text', text: `flaky failure ${calls}` }] }
        : { content: [{ type: 'text', text: `ok after ${calls} calls` }] };
    },
  };
}

/** Answers with a text of `size` characters (for the output cap). */
export const bigTool: FixtureTool = {
  name: 'big',
  inputSchema: object({ size: { type: 'integer', minimum: 1 } }, ['size']),
  handler: ({ size }) => ({ content: [{ type: 'text', text: 'x'.repeat(Number(size)) }] }),
};

/** A secret-bearing input, marked `writeOnly` in the schema. */
export const loginTool: FixtureTool = {
  name: 'login',
  inputSchema: object({ user: { type: 'string' }, pin: { type: 'string', writeOnly: true }, apiKey: { type: 'string' } }, ['user']),
  handler: ({ user }) => ({ content: [{ type: 'text', text: `hello ${String(user)}` }] }),
};
