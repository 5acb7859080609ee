import type { AppConfig } from '../config/app-config.js';

/** A job of the run queue (`QUEUES.runs`, job-queues.ts): the run id (state lives in MongoDB) and hints. */
export interface RunJobData {
  runId: string;
  /**
   * What the run executes, as the API stored it: lets the worker load the workflow version and
   * connect to its MCP servers while it claims the run. A hint only — the claimed run document
   * decides — and absent from jobs enqueued before it existed.
   */
  workflowId?: string;
  version?: number;
  /** The trace context of the request that enqueued the run (W3C headers), when traced: the run's spans continue it. */
  trace?: Record<string, string>;
  /** A scheduled resume of a waiting run (ISO 8601): the worker wakes the run first, and does nothing if it is not due. */
  wakeAt?: string;
}

/** BullMQ connection options from the configured Redis URL. */
export function redisConnectionOptions(config: Pick<AppConfig, 'redisUrl'>, forWorker = false) {
  const url = new URL(config.redisUrl);
  return {
    host: url.hostname,
    port: Number(url.port || 6379),
    username: url.username ? decodeURIComponent(url.username) : undefined,
    password: url.password ? decodeURIComponent(url.password) : undefined,
    db: url.pathname.length > 1 ? Number(url.pathname.slice(1)) : 0,
    tls: url.protocol === 'rediss:' ? {} : undefined,
    // Workers must wait for Redis forever; producers fail fast so the API can answer.
    maxRetriesPerRequest: forWorker ? null : 1,
  };
}
