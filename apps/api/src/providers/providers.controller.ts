import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { parsePageQuery } from '../common/pagination.js';
import { ZodPipe } from '../common/zod-validation.js';
import { createProviderBody, updateProviderBody, type CreateProviderBody, type UpdateProviderBody } from './dto/provider-requests.js';
import { ProvidersService } from './providers.service.js';
import { RequireScope } from '../api-keys/access.decorators.js';

/** LLM providers: OpenAI-compatible endpoints used by `llm` and `agent` nodes. */
@Controller('providers')
export class ProvidersController {
  constructor(private readonly providers: ProvidersService) {}

  @Post()
  @RequireScope('admin')
  create(@Body(new ZodPipe(createProviderBody)) body: CreateProviderBody) {
    return this.providers.create(body);
  }

  @Get()
  @RequireScope('read', 'write')
  list(@Query() query: Record<string, unknown>) {
    return this.providers.list(parsePageQuery(query));
  }

  @Get(':id')
  @RequireScope('read', 'write')
  get(@Param('id') id: string) {
    return this.providers.get(id);
  }

  @Patch(':id')
  @RequireScope('admin')
  update(@Param('id') id: string, @Body(new ZodPipe(updateProviderBody)) body: UpdateProviderBody) {
    return this.providers.update(id, body);
  }

  @Delete(':id')
  @RequireScope('admin')
  @HttpCode(204)
  async remove(@Param('id') id: string): Promise<void> {
    await this.providers.remove(id);
  }
}
