import { EventSourceParserStream } from 'eventsource-parser/stream';
import type { components } from '#client';
import { errorOf } from './api-error';

type Run = components['schemas']['Run'];
type LogItem = components['schemas']['LogItem'];

/** What `GET /runs/:id/events` sends (the SSE event name is `type`). */
export type RunEvent =
  | { type: 'run.started'; runId: string; at: string; claim: number }
  | { type: 'node.started'; runId: string; at: string; nodeId: string; nodeType: string; attempt: number }
  | { type: 'node.finished'; runId: string; at: string; item: LogItem }
  | { type: 'run.waiting'; runId: string; at: string; run: Run }
  | { type: 'run.finished'; runId: string; at: string; run: Run };

/**
 * Reads a run's event stream until it ends or `signal` aborts. EventSource cannot send an
 * Authorization header and the API takes the key only there, so the stream is read with fetch()
 * and parsed by eventsource-parser (the parser the Vercel AI SDK and others use).
 */
export async function readRunEvents(key: string, runId: string, onEvent: (event: RunEvent) => void, signal: AbortSignal): Promise<void> {
  const response = await fetch(`/runs/${encodeURIComponent(runId)}/events`, {
    headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' },
    signal,
  });
  if (!response.ok || !response.body) throw errorOf(response.status, await response.json().catch(() => undefined));
  const events = response.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
  const reader = events.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    onEvent(JSON.parse(value.data) as RunEvent);
  }
}
