/**
 * The per-run client pool (`mcpClientMemory`): one connection per key for the run's lifetime.
 * Concurrent acquires of a key share one connect; a connection whose transport closes or errors
 * is evicted (later acquires get a fresh one) and kept aside until closeAll(), which closes
 * everything — pending connects included — so no session of the run outlives it.
 */
import { Connection } from '../client/connection.js';
import { McpError, McpErrorCode } from '../errors.js';
import type { ConnectOptions, McpConnection, McpTarget } from '../types.js';
import { poolKey } from '../client/pool-key.js';

/** A Streamable HTTP session a pooled connection opened. `target` is the one given to acquire(): it may hold secrets. */
export interface PooledSession {
  key: string;
  target: McpTarget;
  sessionId: string;
}

export interface PoolOptions {
  fetch?: ConnectOptions['fetch'];
  clientInfo?: ConnectOptions['clientInfo'];
  /** How the pool's connections answer a server's elicitation (see ConnectOptions). */
  onElicitation?: ConnectOptions['onElicitation'];
  /**
   * Told of every Streamable HTTP session the pool's connections open, e.g. to record it where a
   * process that outlives this one can end it. The acquire that opened a connection waits for it
   * (so no call is sent on a session it has not seen); if it rejects, that connection is closed
   * and the acquire fails with its error. For a session that replaces a lost one, it is not waited for.
   */
  onSessionOpened?: (session: PooledSession) => void | Promise<void>;
  /** A pooled connection received `notifications/tools/list_changed`; `target` is the one given to acquire(). Must not throw. */
  onToolsListChanged?: (target: McpTarget) => void;
}

export interface AcquiredConnection {
  connection: McpConnection;
  /** False only for the acquire that opened the connection. */
  reused: boolean;
}

interface Entry {
  pending: Promise<McpConnection>;
  connection?: McpConnection;
}

export class McpClientPool {
  private readonly entries = new Map<string, Entry>();
  private readonly evicted = new Set<McpConnection>();
  private readonly connecting = new AbortController();
  private closing?: Promise<void>;

  constructor(private readonly options: PoolOptions = {}) {}

  /** Connections currently handed out for new acquires (connecting ones included). */
  get size(): number {
    return this.entries.size;
  }

  async acquire(target: McpTarget): Promise<AcquiredConnection> {
    if (this.closing) throw closedError();
    const key = poolKey(target);
    let entry = this.entries.get(key);
    const reused = entry !== undefined;
    if (!entry) {
      entry = this.open(key, target);
      this.entries.set(key, entry);
    }
    const connection = await entry.pending;
    if (this.closing) throw closedError();
    return { connection, reused };
  }

  /** Closes every connection (each HTTP session terminated first). Idempotent; always awaited in full. */
  closeAll(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private open(key: string, target: McpTarget): Entry {
    const { onSessionOpened, onToolsListChanged, ...connectOptions } = this.options;
    let seen: Promise<void> | undefined;
    const announce = onSessionOpened
      ? (sessionId: string) => {
          const told = Promise.resolve().then(() => onSessionOpened({ key, target, sessionId }));
          told.catch(() => undefined);
          seen ??= told;
        }
      : undefined;
    const entry: Entry = {
      pending: Connection.open(target, {
        ...connectOptions,
        signal: this.connecting.signal,
        onSessionOpened: announce,
        ...(onToolsListChanged && { onToolsListChanged: () => onToolsListChanged(target) }),
      }).then(async (connection) => {
        entry.connection = connection;
        connection.onFailure(() => this.evict(key, connection));
        try {
          await seen;
        } catch (error) {
          await connection.close();
          throw error;
        }
        return connection;
      }),
    };
    // A failed connect is forgotten, so the next acquire tries again.
    entry.pending.catch(() => {
      if (this.entries.get(key) === entry) this.entries.delete(key);
    });
    return entry;
  }

  private evict(key: string, connection: McpConnection): void {
    if (this.entries.get(key)?.connection !== connection) return;
    this.entries.delete(key);
    // Not closed now: a call in flight on it may still complete (or recover its session).
    this.evicted.add(connection);
  }

  private async shutdown(): Promise<void> {
    this.connecting.abort();
    const pending = [...this.entries.values()].map((entry) => entry.pending);
    this.entries.clear();
    const settled = await Promise.allSettled(pending);
    const open = settled.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
    await Promise.all([...open, ...this.evicted].map((connection) => connection.close()));
    this.evicted.clear();
  }
}

/** The name the SPEC uses for a run's pool. */
export function mcpClientMemory(options?: PoolOptions): McpClientPool {
  return new McpClientPool(options);
}

function closedError(): McpError {
  return new McpError(McpErrorCode.CANCELED, 'the MCP client pool is closed (the run has ended)');
}
