import type { ServerEvent, ServerEventBus } from '@modelcontextprotocol/server';
import type { ToolListChanges } from '../mcp-servers/tool-list-changes.js';

/**
 * The SDK's change-event bus for one published server (its modern `subscriptions/listen`
 * streams), over the cross-process ToolListChanges: a change published by any API process
 * reaches the streams every process holds.
 */
export class ServerToolsBus implements ServerEventBus {
  constructor(
    private readonly serverId: string,
    private readonly changes: ToolListChanges,
  ) {}

  publish(event: ServerEvent): void {
    if (event.kind === 'tools_list_changed') void this.changes.publish([this.serverId]);
  }

  subscribe(listener: (event: ServerEvent) => void): () => void {
    let unsubscribe: (() => void) | undefined;
    let closed = false;
    void this.changes
      .subscribe(this.serverId, () => listener({ kind: 'tools_list_changed' }))
      .then((stop) => {
        if (closed) stop();
        else unsubscribe = stop;
      });
    return () => {
      closed = true;
      unsubscribe?.();
    };
  }
}
