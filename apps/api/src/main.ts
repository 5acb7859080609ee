import 'reflect-metadata';
import { ConfigError, loadConfig } from '#workflow/nest';
import { createApiApp } from './app.factory.js';

async function main(): Promise<void> {
  const config = loadConfig();
  const app = await createApiApp(config);
  await app.listen(config.api.port, config.api.host);
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
