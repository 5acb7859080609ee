import { Global, Inject, Injectable, Module, type OnApplicationShutdown } from '@nestjs/common';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { RunQueueProducer } from '../queue/run-queue-producer.js';
import { Metrics, QUEUE_STATES } from './metrics.js';

/** Feeds `mcpflow_queue_jobs` from the run queue at each scrape, over a queue connection of its own. */
@Injectable()
class QueueDepthWatch implements OnApplicationShutdown {
  private readonly producer: RunQueueProducer;

  constructor(@Inject(APP_CONFIG) config: AppConfig, metrics: Metrics) {
    this.producer = new RunQueueProducer(config);
    metrics.watchQueue(() => this.producer.queue.getJobCounts(...QUEUE_STATES));
  }

  onApplicationShutdown(): Promise<void> {
    return this.producer.close();
  }
}

/** One Metrics per application (API or worker), for anything in it to record into. */
@Global()
@Module({ providers: [Metrics, QueueDepthWatch], exports: [Metrics] })
export class MetricsModule {}
