import { Inject, Injectable } from '@nestjs/common';
import type { McpHttpTarget, TransportMode } from '#mcp';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { OutboundHttp } from '../outbound/outbound.module.js';
import { ToolsetRepository } from './toolset.repository.js';

/** How to reach an MCP server by URL; header values in clear. */
export interface ConnectionSpec {
  url: string;
  headers: Record<string, string>;
  transport: TransportMode;
  /** The revision remembered from the last listing; unset → the stateless revision is tried first. */
  protocolVersion?: string;
  timeoutMs?: number;
}

export interface TargetOptions {
  /**
   * `resolved` (default; runs, ad-hoc calls): the transport the server spoke at the last listing,
   * so no probing. `requested`: the toolset's own mode (`auto` probes again), for a refresh.
   */
  transport?: 'resolved' | 'requested';
}

/** MCP target of a connection: headers in clear, the SSRF-safe fetch, the call timeout (toolset's, else the default). */
export function connectionTarget(spec: ConnectionSpec, fetch: McpHttpTarget['fetch'], defaultTimeoutMs: number): McpHttpTarget {
  const target: McpHttpTarget = { url: spec.url, headers: spec.headers, transport: spec.transport, timeoutMs: spec.timeoutMs ?? defaultTimeoutMs, fetch };
  if (spec.protocolVersion !== undefined) target.protocolVersion = spec.protocolVersion;
  return target;
}

/** Builds MCP targets for stored toolsets (the worker's pool, the API's ad-hoc calls and listings). */
@Injectable()
export class ToolsetTargets {
  constructor(
    private readonly toolsets: ToolsetRepository,
    private readonly outbound: OutboundHttp,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** undefined when the toolset does not exist. The target holds secrets: never log, store or return it. */
  async toolsetConnectionTarget(toolsetId: string, options: TargetOptions = {}): Promise<McpHttpTarget | undefined> {
    const connection = await this.toolsets.connectionOf(toolsetId);
    if (!connection) return undefined;
    const transport = options.transport === 'requested' ? connection.transport : connection.resolvedTransport;
    return this.targetFor({ ...connection, transport });
  }

  targetFor(spec: ConnectionSpec): McpHttpTarget {
    return connectionTarget(spec, this.outbound.fetch, this.config.limits.callTimeoutMs);
  }
}
