import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { hostname } from 'node:os';
import type { AddressInfo } from 'node:net';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { Redis } from 'ioredis';
import { APP_CONFIG, Metrics, SNAPSHOT_INTERVAL_MS, pushWorkerSnapshot, redisConnectionOptions, type AppConfig } from '#workflow/nest';

/** After a run finishes, its figures reach the API's /metrics this soon (the runs finishing meanwhile: one push, not one per run). */
const PUSH_AFTER_RUN_MS = 1000;

/**
 * The worker's Prometheus side: `GET /metrics` on a listener of its own (WORKER_METRICS_HOST /
 * WORKER_METRICS_PORT, loopback by default: no key is asked, so it must not face a network
 * nobody trusts), and a push of its `work` series to Redis every SNAPSHOT_INTERVAL_MS and soon
 * after each run, which the API's /metrics sums over all workers.
 */
@Injectable()
export class WorkerMetrics implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(WorkerMetrics.name);
  private readonly id = `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  private readonly redis: Redis;
  private server?: Server;
  private interval?: NodeJS.Timeout;
  private pending?: NodeJS.Timeout;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly metrics: Metrics,
  ) {
    this.redis = new Redis({ ...redisConnectionOptions(config), enableOfflineQueue: false });
    this.redis.on('error', () => undefined);
  }

  /** Where the listener is bound (undefined until bound, or when it could not bind). */
  get address(): AddressInfo | undefined {
    const address = this.server?.address();
    return address && typeof address === 'object' ? address : undefined;
  }

  async onApplicationBootstrap(): Promise<void> {
    this.interval = setInterval(() => this.push(), SNAPSHOT_INTERVAL_MS);
    this.metrics.onRunFinished(() => (this.pending ??= setTimeout(() => this.push(), PUSH_AFTER_RUN_MS)));
    this.push();
    await this.listen();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.interval);
    clearTimeout(this.pending);
    this.redis.disconnect();
    const server = this.server;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async listen(): Promise<void> {
    const { host, port } = this.config.workerMetrics;
    const server = createServer((req, res) => {
      if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: GET /metrics\n');
        return;
      }
      this.metrics.exposition().then(
        (text) => res.writeHead(200, { 'content-type': this.metrics.contentType }).end(text),
        () => res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics could not be collected\n'),
      );
    });
    // Metrics are not worth the worker: a taken port is reported, and runs go on without the listener.
    const bound = await new Promise<boolean>((resolve) => {
      server.once('error', (error) => {
        this.logger.error(
          { err: error },
          `metrics listener could not bind ${host}:${port}: this worker serves no /metrics (WORKER_METRICS_PORT)`,
        );
        resolve(false);
      });
      server.listen(port, host, () => resolve(true));
    });
    if (!bound) return;
    this.server = server;
    this.logger.log(`metrics on http://${host}:${this.address?.port ?? port}/metrics`);
  }

  private push(): void {
    this.pending = undefined;
    // Redis away: the next push carries the same counters (they only grow).
    void this.metrics
      .workSnapshot()
      .then((snapshot) => pushWorkerSnapshot(this.redis, this.config.queuePrefix, this.id, snapshot))
      .catch(() => undefined);
  }
}
