import { context, SpanKind, SpanStatusCode, type Span } from '@opentelemetry/api';
import { tracer } from './tracing.js';

/** The part of the MongoDB driver's command monitoring this listens to (the client needs `monitorCommands: true`). */
interface CommandEvent {
  requestId: number;
  commandName: string;
}
interface CommandStartedEvent extends CommandEvent {
  command: Record<string, unknown>;
  databaseName: string;
}
interface CommandFailedEvent extends CommandEvent {
  failure: Error;
}
export interface CommandMonitor {
  on(event: 'commandStarted', listener: (event: CommandStartedEvent) => void): unknown;
  on(event: 'commandSucceeded', listener: (event: CommandEvent) => void): unknown;
  on(event: 'commandFailed', listener: (event: CommandFailedEvent) => void): unknown;
}

/**
 * A client span `store.<command> <collection>` for every command the store receives, child of
 * the span active when the command was sent (a node, a run, a request). It names the collection
 * and the command, never the filter or the document (they can hold run inputs).
 */
export function traceStoreCommands(client: CommandMonitor): void {
  const open = new Map<number, Span>();
  client.on('commandStarted', (event) => {
    const collection = event.command[event.commandName];
    const name = typeof collection === 'string' ? `store.${event.commandName} ${collection}` : `store.${event.commandName}`;
    const span = tracer.startSpan(
      name,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          'db.system.name': 'mongodb',
          'db.namespace': event.databaseName,
          'db.operation.name': event.commandName,
          ...(typeof collection === 'string' && { 'db.collection.name': collection }),
        },
      },
      context.active(),
    );
    open.set(event.requestId, span);
  });
  client.on('commandSucceeded', (event) => {
    const span = open.get(event.requestId);
    if (!span) return;
    open.delete(event.requestId);
    span.end();
  });
  client.on('commandFailed', (event) => {
    const span = open.get(event.requestId);
    if (!span) return;
    open.delete(event.requestId);
    span.recordException(event.failure);
    span.setStatus({ code: SpanStatusCode.ERROR, message: event.failure.message });
    span.end();
  });
}
