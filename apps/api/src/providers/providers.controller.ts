import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { pageQuerySchema, type PageQuery } from '../common/pagination.js';
import { ZodPipe } from '../common/zod-validation.js';
import { CreateProvider } from './create-provider.js';
import { DeleteProvider } from './delete-provider.js';
import { createProviderBody, updateProviderBody, type CreateProviderBody, type UpdateProviderBody } from './dto/provider-requests.js';
import { FindProviders } from './find-providers.js';
import { UpdateProvider } from './update-provider.js';
import { RequireScope } from '../api-keys/access.decorators.js';
import { ApiRoute } from '../common/api-route.js';
import { providerRoutes } from './providers.routes.js';

/** LLM providers: OpenAI-compatible endpoints used by `llm` and `agent` nodes. */
@Controller('providers')
export class ProvidersController {
  constructor(
    private readonly createProvider: CreateProvider,
    private readonly findProviders: FindProviders,
    private readonly updateProvider: UpdateProvider,
    private readonly deleteProvider: DeleteProvider,
  ) {}

  @Post()
  @ApiRoute(providerRoutes.create)
  @RequireScope('admin')
  create(@Body(new ZodPipe(createProviderBody)) body: CreateProviderBody) {
    return this.createProvider.execute(body);
  }

  @Get()
  @ApiRoute(providerRoutes.list)
  @RequireScope('read', 'write')
  list(@Query(new ZodPipe(pageQuerySchema, 'query')) page: PageQuery) {
    return this.findProviders.list(page);
  }

  @Get(':id')
  @ApiRoute(providerRoutes.get)
  @RequireScope('read', 'write')
  get(@Param('id') id: string) {
    return this.findProviders.get(id);
  }

  @Patch(':id')
  @ApiRoute(providerRoutes.update)
  @RequireScope('admin')
  update(@Param('id') id: string, @Body(new ZodPipe(updateProviderBody)) body: UpdateProviderBody) {
    return this.updateProvider.execute(id, body);
  }

  @Delete(':id')
  @RequireScope('admin')
  @HttpCode(204)
  @ApiRoute(providerRoutes.remove)
  async remove(@Param('id') id: string): Promise<void> {
    await this.deleteProvider.execute(id);
  }
}
