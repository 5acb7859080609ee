import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ApiKeyRepository, ConfigError, ConfigModule, loadConfig, PersistenceModule, WorkflowStoreModule } from '#workflow/nest';
import { CreateApiKey } from '../api-keys/create-api-key.js';
import { createApiKeyBody } from '../api-keys/dto/api-key-requests.js';
import { parseRequest } from '../common/zod-validation.js';

const USAGE =
  'usage: node dist/apps/api/src/cli/create-api-key.js --name <name> --scopes admin|write|run|read|mcp[,…] [--workflows <id>,…] [--mcp-servers <id>,…] [--expires-at <ISO date>]';

/**
 * One-off: creates an API key straight in the database (MONGO_URL) and prints it once, as JSON
 * with `key`. For a first key without ADMIN_API_KEY, or to recover when every admin key is lost.
 */
async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      name: { type: 'string' },
      scopes: { type: 'string' },
      workflows: { type: 'string' },
      'mcp-servers': { type: 'string' },
      'expires-at': { type: 'string' },
    },
  });
  if (!values.name || !values.scopes) throw new UsageError(USAGE);
  const list = (value: string) =>
    value
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean);
  const body = parseRequest(
    createApiKeyBody,
    {
      name: values.name,
      scopes: list(values.scopes),
      workflows: values.workflows === undefined ? undefined : list(values.workflows),
      mcpServers: values['mcp-servers'] === undefined ? undefined : list(values['mcp-servers']),
      expiresAt: values['expires-at'],
    },
    'arguments',
  );
  const config = loadConfig();

  @Module({
    // WorkflowStoreModule: CreateApiKey checks that the workflows a key is limited to exist.
    imports: [ConfigModule.forRoot(config), PersistenceModule.forRoot(config.mongoUrl), WorkflowStoreModule],
    providers: [ApiKeyRepository, CreateApiKey],
  })
  class CliModule {}
  const context = await NestFactory.createApplicationContext(CliModule, { logger: ['error'] });
  try {
    const created = await context.get(CreateApiKey).execute(body, null);
    process.stdout.write(`${JSON.stringify(created, null, 2)}\n`);
  } finally {
    await context.close();
  }
}

class UsageError extends Error {}

main().catch((error: unknown) => {
  const problems = (error as { errors?: { path: string; message: string }[] }).errors;
  if (problems) console.error(problems.map((problem) => `${problem.path}: ${problem.message}`).join('\n'));
  else console.error(error instanceof ConfigError || error instanceof UsageError ? error.message : error);
  process.exit(1);
});
