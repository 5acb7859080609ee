import 'reflect-metadata';
import { ConfigError, loadConfig, startTracing } from '#workflow/nest';
import { createApiApp } from './app.factory.js';

async function main(): Promise<void> {
  const config = loadConfig();
  const stopTracing = await startTracing({ serviceName: 'mcpflow-api' });
  // The spans still buffered leave before the process does (Nest closes the app on these signals too).
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => void stopTracing().catch(() => undefined));
  const app = await createApiApp(config);
  await app.listen(config.api.port, config.api.host);
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
