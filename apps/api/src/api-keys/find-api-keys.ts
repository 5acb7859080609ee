import { Injectable } from '@nestjs/common';
import { ApiKeyRepository } from '#workflow/nest';
import { NotFoundError } from '../common/api-errors.js';
import { mapPage, type Page, type PageQuery } from '../common/pagination.js';
import { apiKeyView, type ApiKeyView } from './dto/api-key-views.js';

/** GET /api-keys and GET /api-keys/:id. */
@Injectable()
export class FindApiKeys {
  constructor(private readonly keys: ApiKeyRepository) {}

  async list(page: PageQuery): Promise<Page<ApiKeyView>> {
    return mapPage(await this.keys.page(page), apiKeyView);
  }

  async get(id: string): Promise<ApiKeyView> {
    const record = await this.keys.findById(id);
    if (!record) throw new NotFoundError('API key', id);
    return apiKeyView(record);
  }
}
