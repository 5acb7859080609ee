import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { pageQuerySchema, type PageQuery } from '../common/pagination.js';
import { ZodPipe } from '../common/zod-validation.js';
import { ApiRoute } from '../common/api-route.js';
import { Caller, RequireScope } from './access.decorators.js';
import { apiKeyRoutes } from './api-keys.routes.js';
import type { Principal } from './api-key-authenticator.js';
import { CreateApiKey } from './create-api-key.js';
import { createApiKeyBody, type CreateApiKeyBody } from './dto/api-key-requests.js';
import { FindApiKeys } from './find-api-keys.js';
import { RevokeApiKey } from './revoke-api-key.js';

/** API keys: admin only. */
@Controller('api-keys')
@RequireScope('admin')
export class ApiKeysController {
  constructor(
    private readonly createApiKey: CreateApiKey,
    private readonly findApiKeys: FindApiKeys,
    private readonly revokeApiKey: RevokeApiKey,
  ) {}

  @Post()
  @ApiRoute(apiKeyRoutes.create)
  create(@Body(new ZodPipe(createApiKeyBody)) body: CreateApiKeyBody, @Caller() caller: Principal) {
    return this.createApiKey.execute(body, caller.keyId);
  }

  @Get()
  @ApiRoute(apiKeyRoutes.list)
  list(@Query(new ZodPipe(pageQuerySchema, 'query')) page: PageQuery) {
    return this.findApiKeys.list(page);
  }

  @Get(':id')
  @ApiRoute(apiKeyRoutes.get)
  get(@Param('id') id: string) {
    return this.findApiKeys.get(id);
  }

  @Delete(':id')
  @ApiRoute(apiKeyRoutes.revoke)
  @HttpCode(204)
  async revoke(@Param('id') id: string, @Caller() caller: Principal): Promise<void> {
    await this.revokeApiKey.execute(id, caller);
  }
}
