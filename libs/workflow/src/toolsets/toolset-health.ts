import { Injectable } from '@nestjs/common';
import { connectMcp, isMcpError } from '#mcp';
import { scrubSecrets } from '../engine/scrub-secrets.js';
import { connectionSecrets } from '../persistence/toolset-records.js';
import { ToolsetRepository } from '../persistence/toolset.repository.js';
import { connectionSpecOf, ToolsetTargets } from './toolset-targets.js';
import { ToolsetRefreshRequests } from '../queue/toolset-refresh-queue.js';

/** A health check's bounds: connecting (handshake included), then one listing. */
const CHECK_CONNECT_TIMEOUT_MS = 10_000;
const CHECK_LIST_TIMEOUT_MS = 10_000;

/** The outcome of one check, as stored on the toolset (`health`) and answered by `POST /toolsets/:id/check`. */
export interface ToolsetHealth {
  ok: boolean;
  checkedAt: Date;
  /** Connect, handshake and one `tools/list`, end to end. */
  latencyMs: number;
  /** The revision the server spoke (its server info), when it answered. */
  protocolVersion?: string;
  error?: { code: string; message: string };
}

/**
 * Connects to a toolset's server as a run would (its resolved transport, remembered revision,
 * SSRF-safe fetch, the stdio gate), lists its tools once — a real round trip every server
 * answers, where `ping` is optional and the stateless revision has none — closes, and stores the
 * outcome on the toolset without touching its revision (a check changes nothing runs depend on).
 */
@Injectable()
export class ToolsetHealthChecker {
  constructor(
    private readonly toolsets: ToolsetRepository,
    private readonly targets: ToolsetTargets,
    private readonly refreshes: ToolsetRefreshRequests,
  ) {}

  /** undefined when the toolset does not exist. */
  async check(toolsetId: string, signal?: AbortSignal): Promise<ToolsetHealth | undefined> {
    const connection = await this.toolsets.connectionOf(toolsetId);
    if (!connection) return undefined;
    const began = performance.now();
    const elapsed = () => Math.round(performance.now() - began);
    let health: ToolsetHealth;
    try {
      const target = { ...this.targets.targetFor(connectionSpecOf(connection)), connectTimeoutMs: CHECK_CONNECT_TIMEOUT_MS };
      const mcp = await connectMcp(target, { signal, onToolsListChanged: () => this.refreshes.request(toolsetId) });
      try {
        await mcp.listTools({ signal, timeoutMs: CHECK_LIST_TIMEOUT_MS });
        health = { ok: true, checkedAt: new Date(), latencyMs: elapsed(), protocolVersion: mcp.serverInfo.protocolVersion };
      } finally {
        await mcp.close();
      }
    } catch (error) {
      // A check its caller gave up on says nothing about the server: nothing is stored.
      if (signal?.aborted) throw error;
      const code = isMcpError(error) || hasCode(error) ? error.code : 'MCP_UNREACHABLE';
      const message = scrubSecrets(error instanceof Error ? error.message : String(error), connectionSecrets(connection)).slice(0, 1000);
      health = { ok: false, checkedAt: new Date(), latencyMs: elapsed(), error: { code, message } };
    }
    await this.toolsets.recordHealth(toolsetId, health);
    return health;
  }
}

function hasCode(error: unknown): error is Error & { code: string } {
  return error instanceof Error && typeof (error as { code?: unknown }).code === 'string';
}
