import { Injectable, Logger } from '@nestjs/common';
import { ApiKeyRepository } from '#workflow/nest';
import { NotFoundError } from '../common/api-errors.js';
import { ApiKeyAuthenticator, type Principal } from './api-key-authenticator.js';

/**
 * DELETE /api-keys/:id: the key is kept (its id stays meaningful in `triggeredBy`, `createdBy`)
 * with `revokedAt` set; the next request with it, on any API process, is refused, and its open
 * streams end at once (on other processes by the broadcast, or at their next key check if it is lost).
 */
@Injectable()
export class RevokeApiKey {
  private readonly logger = new Logger(RevokeApiKey.name);

  constructor(
    private readonly keys: ApiKeyRepository,
    private readonly authenticator: ApiKeyAuthenticator,
  ) {}

  async execute(id: string, caller: Principal): Promise<void> {
    const record = await this.keys.revoke(id, new Date());
    if (!record) throw new NotFoundError('API key', id);
    await this.authenticator.changed(id);
    this.logger.log({ apiKeyId: id, revokedBy: caller.keyId }, 'API key revoked');
  }
}
