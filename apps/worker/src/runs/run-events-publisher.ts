import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { Redis } from 'ioredis';
import { type RunEvent } from '#workflow';
import {
  APP_CONFIG,
  Metrics,
  redisConnectionOptions,
  runCancelChannel,
  runEventsChannel,
  toLogItem,
  toRunView,
  type AppConfig,
  type RunRecord,
  type RunningNode,
  type RunStreamEvent,
} from '#workflow/nest';

/**
 * Publishes a run's progress on Redis for SSE clients and `?wait` callers. Fire and forget: the
 * run never waits for it, and a lost message costs listeners only latency (they re-read MongoDB).
 */
@Injectable()
export class RunEventsPublisher implements OnApplicationShutdown {
  private readonly redis: Redis;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly metrics: Metrics,
  ) {
    // Auto-pipelining: the events of one tick (a node's finish, the next one's start) go out in one write.
    this.redis = new Redis({ ...redisConnectionOptions(config), enableOfflineQueue: false, enableAutoPipelining: true });
    this.redis.on('error', () => undefined);
  }

  /**
   * The publisher of one engine run (one claim): engine events, except `run.finished` (published
   * by `runFinished` once MongoDB has it). It keeps the nodes in flight, which each node event
   * carries (`running`), so that a listener that subscribed while they ran learns of them at once.
   */
  engineEvents(claim: number): (event: RunEvent) => void {
    const running = new Map<string, RunningNode>();
    const others = (nodeId: string): RunningNode[] => [...running.values()].filter((node) => node.nodeId !== nodeId);
    return (event) => {
      this.metrics.runEvent(event, claim);
      const at = new Date(event.at).toISOString();
      switch (event.type) {
        case 'run.started':
          return this.publish({ type: 'run.started', runId: event.runId, at, claim, resumedExecutions: event.resumedExecutions });
        case 'node.started': {
          const { nodeId, nodeType, attempt } = event;
          const list = others(nodeId);
          running.set(nodeId, { nodeId, nodeType, attempt, at });
          return this.publish({
            type: 'node.started',
            runId: event.runId,
            at,
            nodeId,
            nodeType,
            attempt,
            ...(list.length > 0 && { running: list }),
          });
        }
        case 'node.finished': {
          running.delete(event.record.nodeId);
          const list = others(event.record.nodeId);
          return this.publish({
            type: 'node.finished',
            runId: event.runId,
            at,
            item: toLogItem(event.record),
            ...(list.length > 0 && { running: list }),
          });
        }
        case 'run.finished':
          return;
      }
    };
  }

  runFinished(run: RunRecord): void {
    this.metrics.runFinished(run);
    const view = toRunView(run);
    this.publish({ type: 'run.finished', runId: view.id, at: view.finishedAt ?? new Date().toISOString(), run: view });
  }

  /** Once MongoDB holds the run `waiting` with its request. */
  runWaiting(run: RunRecord): void {
    const view = toRunView(run);
    this.publish({ type: 'run.waiting', runId: view.id, at: view.inputRequest?.requestedAt ?? new Date().toISOString(), run: view });
  }

  /** On the workers' cancel channel (a cascade's running child, held by this worker or another). Rejects with Redis away. */
  async requestStop(runId: string): Promise<void> {
    await this.redis.publish(runCancelChannel(this.config.queuePrefix), runId);
  }

  onApplicationShutdown(): void {
    this.redis.disconnect();
  }

  private publish(event: RunStreamEvent): void {
    this.redis.publish(runEventsChannel(this.config.queuePrefix, event.runId), JSON.stringify(event)).catch(() => undefined);
  }
}
