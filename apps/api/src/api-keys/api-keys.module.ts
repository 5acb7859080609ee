import { Global, Module } from '@nestjs/common';
import { APP_GUARD, DiscoveryModule } from '@nestjs/core';
import { ApiKeyRepository, WorkflowStoreModule } from '#workflow/nest';
import { ApiKeyAuthenticator } from './api-key-authenticator.js';
import { ApiKeysController } from './api-keys.controller.js';
import { AuthGuard } from './auth.guard.js';
import { CreateApiKey } from './create-api-key.js';
import { FindApiKeys } from './find-api-keys.js';
import { KeyBoundStreams } from './key-bound-streams.js';
import { RateLimits } from './rate-limits.js';
import { RevokeApiKey } from './revoke-api-key.js';
import { RouteDeclarations } from './route-declarations.js';
import { SeedAdminKey } from './seed-admin-key.js';
import { WorkflowOfRun } from './workflow-of-run.js';

/**
 * API keys and the global auth guard. Global so that other features can inject
 * `ApiKeyAuthenticator` (token → principal) for entry points outside Nest's guards.
 */
@Global()
@Module({
  imports: [DiscoveryModule, WorkflowStoreModule],
  controllers: [ApiKeysController],
  providers: [
    ApiKeyRepository,
    ApiKeyAuthenticator,
    RateLimits,
    RouteDeclarations,
    SeedAdminKey,
    CreateApiKey,
    FindApiKeys,
    KeyBoundStreams,
    RevokeApiKey,
    WorkflowOfRun,
    { provide: APP_GUARD, useClass: AuthGuard },
  ],
  exports: [ApiKeyAuthenticator, ApiKeyRepository, KeyBoundStreams, RateLimits],
})
export class ApiKeysModule {}
