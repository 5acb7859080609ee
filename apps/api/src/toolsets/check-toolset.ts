import { Injectable } from '@nestjs/common';
import { ToolsetHealthChecker, ToolsetRepository } from '#workflow/nest';
import { NotFoundError } from '../common/api-errors.js';
import { healthView, type HealthView } from './dto/toolset-views.js';
import { refuseStdioUnlessAdmin, type Requester } from './requester.js';

export type CheckView = Omit<HealthView, 'protocolVersion'> & { protocolVersion: string | null };

/**
 * POST /toolsets/:id/check: connect, list once, close; the outcome is answered (200 whether the
 * server is healthy or not: the check itself worked) and stored as the toolset's `health`.
 * Checking a stdio toolset starts its process: `admin` only.
 */
@Injectable()
export class CheckToolset {
  constructor(
    private readonly toolsets: ToolsetRepository,
    private readonly checker: ToolsetHealthChecker,
  ) {}

  async execute(id: string, requester: Requester, signal?: AbortSignal): Promise<CheckView> {
    const toolset = await this.toolsets.findById(id);
    if (!toolset) throw new NotFoundError('Toolset', id);
    refuseStdioUnlessAdmin(toolset.kind, requester);
    const health = await this.checker.check(id, signal);
    if (!health) throw new NotFoundError('Toolset', id);
    return { ...healthView(health), protocolVersion: health.protocolVersion ?? null };
  }
}
