import { Injectable, Logger } from '@nestjs/common';
import { ApiKeyRepository } from '#workflow/nest';
import { NotFoundError } from '../common/api-errors.js';
import type { Principal } from './api-key-authenticator.js';
import { KeyBoundStreams } from './key-bound-streams.js';

/**
 * DELETE /api-keys/:id: the key is kept (its id stays meaningful in `triggeredBy`, `createdBy`)
 * with `revokedAt` set; the next request with it, on any API process, is refused, and its open
 * streams end (here at once, on other processes at their next key check).
 */
@Injectable()
export class RevokeApiKey {
  private readonly logger = new Logger(RevokeApiKey.name);

  constructor(
    private readonly keys: ApiKeyRepository,
    private readonly streams: KeyBoundStreams,
  ) {}

  async execute(id: string, caller: Principal): Promise<void> {
    const record = await this.keys.revoke(id, new Date());
    if (!record) throw new NotFoundError('API key', id);
    this.streams.endAll(id);
    this.logger.log({ apiKeyId: id, revokedBy: caller.keyId }, 'API key revoked');
  }
}
