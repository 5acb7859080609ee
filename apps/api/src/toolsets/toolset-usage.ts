import { Injectable } from '@nestjs/common';
import { z } from 'zod';
import { ToolCallRepository, ToolsetRepository, type ToolUsage } from '#workflow/nest';
import { NotFoundError } from '../common/api-errors.js';

/** The window when `since` is not given. */
const DEFAULT_WINDOW_MS = 24 * 60 * 60 * 1000;

export const usageQuery = z.strictObject({
  since: z.iso
    .datetime({ offset: true })
    .transform((value) => new Date(value))
    .optional(),
});
export type UsageQuery = z.output<typeof usageQuery>;

export interface UsageView {
  toolsetId: string;
  since: string;
  until: string;
  calls: number;
  failed: number;
  tools: ToolUsage[];
}

/**
 * GET /toolsets/:id/usage?since=…: per tool, the calls since then (runs' nodes and agents, and
 * ad-hoc calls), failures by code and p50/p95 duration, computed by the database.
 */
@Injectable()
export class ToolsetUsage {
  constructor(
    private readonly toolsets: ToolsetRepository,
    private readonly toolCalls: ToolCallRepository,
  ) {}

  async execute(id: string, query: UsageQuery): Promise<UsageView> {
    if (!(await this.toolsets.exists(id))) throw new NotFoundError('Toolset', id);
    const until = new Date();
    const since = query.since ?? new Date(until.getTime() - DEFAULT_WINDOW_MS);
    const tools = await this.toolCalls.usage(id, since);
    const failed = tools.reduce((sum, tool) => sum + Object.values(tool.errors).reduce((a, b) => a + b, 0), 0);
    const calls = tools.reduce((sum, tool) => sum + tool.calls, 0);
    return { toolsetId: id, since: since.toISOString(), until: until.toISOString(), calls, failed, tools };
  }
}
