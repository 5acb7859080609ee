import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Inject, Injectable } from '@nestjs/common';
import type { McpHttpTarget, McpStdioTarget, McpTarget, TransportMode } from '#mcp';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { OutboundHttp } from '../outbound/outbound.module.js';
import { renderHeaders, staticHeaders } from '../engine/secret-inputs.js';
import { stdioRefusal } from '../stdio/stdio-policy.js';
import type { ToolsetConnection } from '../persistence/toolset-records.js';
import { ToolsetRepository } from '../persistence/toolset.repository.js';
import { lockName, ToolsetOAuth } from '../oauth/toolset-oauth.js';
import type { ToolsetAuthSettings } from '../persistence/toolset-records.js';

/** How to reach an MCP server by URL; header values in clear. */
export interface HttpConnectionSpec {
  kind?: 'http';
  /** Set for a stored toolset: its OAuth grant is found by it. */
  toolsetId?: string;
  url: string;
  headers: Record<string, string>;
  /** OAuth: the connection's fetch adds the toolset's bearer token. */
  auth?: ToolsetAuthSettings;
  transport: TransportMode;
  /** The revision remembered from the last listing; unset → the stateless revision is tried first. */
  protocolVersion?: string;
  timeoutMs?: number;
}

/** How to start a local MCP server; env values in clear. `toolsetId` names its working directory (absent before it is saved). */
export interface StdioConnectionSpec {
  kind: 'stdio';
  command: string;
  args: string[];
  env: Record<string, string>;
  timeoutMs?: number;
  toolsetId?: string;
}

export type ConnectionSpec = HttpConnectionSpec | StdioConnectionSpec;

export interface TargetOptions {
  /**
   * `resolved` (default; runs, ad-hoc calls): the transport the server spoke at the last listing,
   * so no probing. `requested`: the toolset's own mode (`auto` probes again), for a refresh.
   */
  transport?: 'resolved' | 'requested';
}

/**
 * MCP target of a connection: headers in clear, the SSRF-safe fetch, the call timeout (toolset's,
 * else the default). Header templates are filled from a run's secret inputs; without a run
 * (listing, ad-hoc call) the templated headers are left out.
 */
export function connectionTarget(
  spec: HttpConnectionSpec,
  fetch: McpHttpTarget['fetch'],
  defaultTimeoutMs: number,
  secrets?: Record<string, unknown>,
): McpHttpTarget {
  const headers = secrets ? renderHeaders(spec.headers, secrets) : staticHeaders(spec.headers);
  const target: McpHttpTarget = { url: spec.url, headers, transport: spec.transport, timeoutMs: spec.timeoutMs ?? defaultTimeoutMs, fetch };
  if (spec.protocolVersion !== undefined) target.protocolVersion = spec.protocolVersion;
  return target;
}

/** A stored connection as a spec: http ones with the transport chosen by `options`, stdio ones as they are. */
export function connectionSpecOf(connection: ToolsetConnection, options: TargetOptions = {}): ConnectionSpec {
  if (connection.kind === 'stdio') {
    const { command, args, env, timeoutMs, id } = connection;
    return { kind: 'stdio', command, args, env, toolsetId: id, ...(timeoutMs === undefined ? {} : { timeoutMs }) };
  }
  const transport = options.transport === 'requested' ? connection.transport : connection.resolvedTransport;
  const { url, headers, timeoutMs, protocolVersion, id, auth } = connection;
  return {
    url,
    headers,
    transport,
    ...(id === undefined ? {} : { toolsetId: id }),
    ...(auth === undefined ? {} : { auth }),
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    ...(protocolVersion === undefined ? {} : { protocolVersion }),
  };
}

/** Builds MCP targets for stored toolsets (the worker's pool, the API's ad-hoc calls and listings). */
@Injectable()
export class ToolsetTargets {
  constructor(
    private readonly toolsets: ToolsetRepository,
    private readonly outbound: OutboundHttp,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly oauth: ToolsetOAuth,
  ) {}

  /** undefined when the toolset does not exist. The target holds secrets: never log, store or return it. */
  async toolsetConnectionTarget(toolsetId: string, options: TargetOptions = {}): Promise<McpTarget | undefined> {
    const connection = await this.toolsets.connectionOf(toolsetId);
    return connection && this.targetFor(connectionSpecOf(connection, options));
  }

  /**
   * Throws StdioRefusedError for a stdio spec the operator's policy does not allow (checked on
   * every start, not only at create). `subject`: a run's end user, whose grant a per-user OAuth
   * toolset's connections use (without one, the toolset's own grant: listings, ad-hoc calls).
   */
  targetFor(spec: ConnectionSpec, secrets?: Record<string, unknown>, subject?: string): McpTarget {
    if (spec.kind === 'stdio') return this.stdioTarget(spec);
    if (spec.auth && spec.toolsetId !== undefined) {
      const grantOf = spec.auth.perUser === true && subject !== undefined ? subject : '';
      const credentials = this.oauth.credentialsFor(spec.toolsetId, spec.url, spec.auth, grantOf);
      return {
        ...connectionTarget(spec, credentials.fetch, this.config.limits.callTimeoutMs, secrets),
        // The grant is the toolset's (or one subject's): two toolsets on one URL, or two subjects, never share a pooled client.
        credentialScope: `oauth:${lockName(spec.toolsetId, grantOf)}`,
        prepareCredentials: credentials.prepare,
        credentialRenewalMs: credentials.renewalMs,
      };
    }
    return connectionTarget(spec, this.outbound.fetch, this.config.limits.callTimeoutMs, secrets);
  }

  /**
   * A local process: the command as allowed, the SDK's minimal inherited environment (HOME,
   * LOGNAME, PATH, SHELL, TERM, USER) plus the toolset's `env`, and a working directory of its
   * own under STDIO_WORK_DIR (one per toolset; `unsaved` for listings before a toolset exists).
   */
  private stdioTarget(spec: StdioConnectionSpec): McpStdioTarget {
    const refusal = stdioRefusal(this.config.stdio, spec.command);
    if (refusal) throw refusal;
    const cwd = join(this.config.stdio.workDir, spec.toolsetId ?? 'unsaved');
    mkdirSync(cwd, { recursive: true, mode: 0o700 });
    return {
      kind: 'stdio',
      command: spec.command,
      args: spec.args,
      env: spec.env,
      cwd,
      timeoutMs: spec.timeoutMs ?? this.config.limits.callTimeoutMs,
    };
  }
}
