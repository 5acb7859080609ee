import { Injectable } from '@nestjs/common';
import { ProviderRepository } from '#workflow/nest';
import { NotFoundError } from '../common/api-errors.js';
import { mapPage, type Page, type PageQuery } from '../common/pagination.js';
import { providerView, type ProviderView } from './dto/provider-views.js';

/** GET /providers (newest first, paged) and GET /providers/:id, keys masked. */
@Injectable()
export class FindProviders {
  constructor(private readonly providers: ProviderRepository) {}

  async list(page: PageQuery): Promise<Page<ProviderView>> {
    return mapPage(await this.providers.page(page), providerView);
  }

  async get(id: string): Promise<ProviderView> {
    const provider = await this.providers.findById(id);
    if (!provider) throw new NotFoundError('Provider', id);
    return providerView(provider);
  }
}
