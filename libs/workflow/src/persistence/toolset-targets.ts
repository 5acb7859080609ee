import { Inject, Injectable } from '@nestjs/common';
import type { McpHttpTarget, TransportMode } from '#mcp';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { OutboundHttp } from '../outbound/outbound.module.js';
import { ToolsetRepository, type ToolsetConnection } from './toolset.repository.js';

export interface TargetOptions {
  /**
   * `resolved` (default, runs): the transport the server spoke at the last listing, no probing.
   * `requested`: the toolset's own mode (`auto` probes again), for re-listing after a change.
   */
  transport?: 'resolved' | 'requested';
}

/** MCP target of a connection: header values in clear, the SSRF-safe fetch, the call timeout. */
export function connectionTarget(connection: Omit<ToolsetConnection, 'revision'>, fetch: McpHttpTarget['fetch'], defaultTimeoutMs: number, options: TargetOptions = {}): McpHttpTarget {
  const transport: TransportMode = options.transport === 'requested' ? connection.transport : connection.resolvedTransport;
  return { url: connection.url, headers: connection.headers, transport, timeoutMs: connection.timeoutMs ?? defaultTimeoutMs, fetch };
}

/** Builds MCP targets for stored toolsets (worker: one per mcpTool/agent call's pool lookup; API: ad-hoc calls). */
@Injectable()
export class ToolsetTargets {
  constructor(
    private readonly toolsets: ToolsetRepository,
    private readonly outbound: OutboundHttp,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** undefined when the toolset does not exist. The target holds secrets: never log or return it. */
  async toolsetConnectionTarget(toolsetId: string, options: TargetOptions = {}): Promise<McpHttpTarget | undefined> {
    const connection = await this.toolsets.connectionOf(toolsetId);
    return connection && this.targetFor(connection, options);
  }

  targetFor(connection: Omit<ToolsetConnection, 'revision'>, options: TargetOptions = {}): McpHttpTarget {
    return connectionTarget(connection, this.outbound.fetch, this.config.limits.callTimeoutMs, options);
  }
}
