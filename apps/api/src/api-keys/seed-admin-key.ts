import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { APP_CONFIG, ApiKeyRepository, type AppConfig } from '#workflow/nest';
import { materialOf } from './api-key-token.js';

/**
 * `ADMIN_API_KEY` seeds an admin key at boot (stored hashed like any other), so a fresh
 * deployment has a first key. Every API process does it; the unique hash index keeps one. A
 * seeded key that was revoked stays revoked: the variable does not bring it back.
 */
@Injectable()
export class SeedAdminKey implements OnApplicationBootstrap {
  private readonly logger = new Logger(SeedAdminKey.name);

  constructor(
    private readonly keys: ApiKeyRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const key = this.config.auth.adminApiKey;
    if (!key) return;
    const { hash, prefix } = materialOf(key);
    const existing = await this.keys.findByHash(hash);
    if (existing) {
      if (existing.revokedAt) this.logger.warn({ apiKeyId: existing.id }, 'ADMIN_API_KEY is revoked: it stays refused');
      return;
    }
    const created = await this.keys.createIfAbsent({
      name: 'admin (ADMIN_API_KEY)',
      hash,
      prefix,
      scopes: ['admin'],
      workflows: null,
      mcpServers: null,
      expiresAt: null,
      createdBy: null,
    });
    if (created) this.logger.log({ apiKeyId: created.id }, 'admin API key seeded from ADMIN_API_KEY');
  }
}
