import 'reflect-metadata';
import { Logger } from 'nestjs-pino';
import { ConfigError, loadConfig, startTracing } from '#workflow/nest';
import { createWorkerApp } from './worker.factory.js';

async function main(): Promise<void> {
  const config = loadConfig();
  const stopTracing = await startTracing({ serviceName: 'mcpflow-worker' });
  const app = await createWorkerApp(config);
  const logger = app.get(Logger);
  logger.log(`worker ready (concurrency ${config.worker.concurrency}, queue prefix ${config.queuePrefix})`);
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    logger.log(`${signal} received: finishing in-flight work and closing`);
    // A close that cannot finish (Redis or MongoDB gone: hand-backs and disconnects wait on them)
    // must not keep the process: past the deadline it exits, and its runs come back as a crashed
    // worker's do (their locks expire, another worker resumes them).
    const deadlineMs = config.worker.shutdownGraceMs + config.worker.closeDeadlineMs;
    setTimeout(() => {
      logger.error(`did not close within ${deadlineMs} ms of ${signal}: exiting; its unfinished runs are resumed once their locks expire`);
      process.exit(1);
    }, deadlineMs).unref();
    // Closing the context closes the BullMQ worker (in-flight jobs finish or are released) and connections.
    app.close().then(
      // The spans still buffered leave before the process does.
      () => stopTracing().finally(() => process.exit(0)),
      (error: unknown) => {
        logger.error(error);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
