import { Injectable, Logger } from '@nestjs/common';
import { ProviderRepository } from '#workflow/nest';
import type { CreateProviderBody } from './dto/provider-requests.js';
import { providerView, type ProviderView } from './dto/provider-views.js';

/** `POST /providers`. Keys are sealed in the repository only; logs name ids, never keys. */
@Injectable()
export class CreateProvider {
  private readonly logger = new Logger(CreateProvider.name);

  constructor(private readonly providers: ProviderRepository) {}

  async execute(body: CreateProviderBody): Promise<ProviderView> {
    const provider = await this.providers.create(body);
    this.logger.log({ providerId: provider.id, baseURL: provider.baseURL }, 'provider created');
    return providerView(provider);
  }
}
