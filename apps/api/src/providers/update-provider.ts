import { Injectable, Logger } from '@nestjs/common';
import { ProviderRepository } from '#workflow/nest';
import { NotFoundError } from '../common/api-errors.js';
import { MASK, type UpdateProviderBody } from './dto/provider-requests.js';
import { providerView, type ProviderView } from './dto/provider-views.js';

/** `PATCH /providers/:id`; logs name the changed fields, never the key. */
@Injectable()
export class UpdateProvider {
  private readonly logger = new Logger(UpdateProvider.name);

  constructor(private readonly providers: ProviderRepository) {}

  async execute(id: string, body: UpdateProviderBody): Promise<ProviderView> {
    // The mask sent back (a client that PUTs what it GOT) keeps the stored key.
    const changes = body.apiKey === MASK ? { ...body, apiKey: undefined } : body;
    const provider = await this.providers.update(id, changes);
    if (!provider) throw new NotFoundError('Provider', id);
    this.logger.log({ providerId: id, changed: Object.keys(body) }, 'provider updated');
    return providerView(provider);
  }
}
