import { Injectable, Logger } from '@nestjs/common';
import { ApiKeyRepository } from '#workflow/nest';
import { NotFoundError } from '../common/api-errors.js';
import type { Principal } from './api-key-authenticator.js';

/**
 * DELETE /api-keys/:id: the key is kept (its id stays meaningful in `triggeredBy`, `createdBy`)
 * with `revokedAt` set; the next request with it, on any API process, is refused.
 */
@Injectable()
export class RevokeApiKey {
  private readonly logger = new Logger(RevokeApiKey.name);

  constructor(private readonly keys: ApiKeyRepository) {}

  async execute(id: string, caller: Principal): Promise<void> {
    const record = await this.keys.revoke(id, new Date());
    if (!record) throw new NotFoundError('API key', id);
    this.logger.log({ apiKeyId: id, revokedBy: caller.keyId }, 'API key revoked');
  }
}
