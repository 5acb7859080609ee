import { Global, Logger, Module } from '@nestjs/common';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { createSecretBox, type SecretBox } from './secret-box.js';

/** Injection token of the process's SecretBox (`@Inject(SECRET_BOX) box: SecretBox`). */
export const SECRET_BOX = Symbol('SECRET_BOX');

/** Provides one SecretBox built from `config.secrets`; import it once per app (API, worker). */
@Global()
@Module({
  providers: [
    {
      provide: SECRET_BOX,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig): SecretBox => {
        const logger = new Logger('Secrets');
        return createSecretBox(config.secrets, { env: config.env, warn: (message) => logger.warn(message) });
      },
    },
  ],
  exports: [SECRET_BOX],
})
export class SecretsModule {}
