import { Injectable, Logger } from '@nestjs/common';
import { storedSecretsMayFollow } from '#mcp';
import { ProviderRepository } from '#workflow/nest';
import { InvalidRequestError, NotFoundError } from '../common/api-errors.js';
import { MASK, type UpdateProviderBody } from './dto/provider-requests.js';
import { providerView, type ProviderView } from './dto/provider-views.js';

/** `PATCH /providers/:id`; logs name the changed fields, never the key. */
@Injectable()
export class UpdateProvider {
  private readonly logger = new Logger(UpdateProvider.name);

  constructor(private readonly providers: ProviderRepository) {}

  async execute(id: string, body: UpdateProviderBody): Promise<ProviderView> {
    // The mask sent back (a client that PUTs what it GOT) keeps the stored key.
    const keepsStoredKey = body.apiKey === undefined || body.apiKey === MASK;
    if (body.baseURL !== undefined && keepsStoredKey) await this.refuseKeyOnNewOrigin(id, body.baseURL);
    const changes = body.apiKey === MASK ? { ...body, apiKey: undefined } : body;
    const provider = await this.providers.update(id, changes);
    if (!provider) throw new NotFoundError('Provider', id);
    this.logger.log({ providerId: id, changed: Object.keys(body) }, 'provider updated');
    return providerView(provider);
  }

  /** The stored key was entered for its base URL's origin: a move to another origin needs the key again. */
  private async refuseKeyOnNewOrigin(id: string, baseURL: string): Promise<void> {
    const current = await this.providers.findById(id);
    if (!current) throw new NotFoundError('Provider', id);
    if (storedSecretsMayFollow(current.baseURL, baseURL)) return;
    throw new InvalidRequestError(
      [
        {
          path: '/apiKey',
          code: 'SECRET_REQUIRED',
          message: 'The base URL moves to another origin: give the API key again (a stored key stays with the origin it was entered for)',
        },
      ],
      'The request body is invalid',
    );
  }
}
