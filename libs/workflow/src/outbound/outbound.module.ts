import { Global, Inject, Injectable, Module, type OnApplicationShutdown } from '@nestjs/common';
import { createOutboundFetch, type OutboundFetch } from '#mcp';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';

/**
 * The process's SSRF-safe fetch (policy from OUTBOUND_ALLOW / OUTBOUND_DENY), shared by
 * everything that connects to a user-given URL: toolset listing and calls in the API, MCP
 * targets in the worker. One instance, so kept-alive sockets are shared and closed on shutdown.
 */
@Injectable()
export class OutboundHttp implements OnApplicationShutdown {
  readonly fetch: OutboundFetch;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.fetch = createOutboundFetch(config.outbound);
  }

  onApplicationShutdown(): void {
    this.fetch.close();
  }
}

@Global()
@Module({ providers: [OutboundHttp], exports: [OutboundHttp] })
export class OutboundModule {}
