import { Injectable } from '@nestjs/common';
import { WorkflowRepository, type WorkflowDefinition } from '#workflow';

/** Versions kept in memory; they are immutable, so a cached one is never stale. */
const CACHE_SIZE = 200;

/** The worker's reads of workflow versions, cached (a busy workflow's runs share one read). */
@Injectable()
export class WorkflowVersions {
  private readonly cache = new Map<string, WorkflowDefinition>();

  constructor(private readonly workflows: WorkflowRepository) {}

  async get(workflowId: string, version: number): Promise<WorkflowDefinition | undefined> {
    const key = `${workflowId}:${version}`;
    const hit = this.cache.get(key);
    if (hit) {
      // Refresh its place: the map's order is the eviction order.
      this.cache.delete(key);
      this.cache.set(key, hit);
      return hit;
    }
    const stored = await this.workflows.findVersion(workflowId, version);
    if (!stored) return undefined;
    if (this.cache.size >= CACHE_SIZE) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.set(key, stored.definition);
    return stored.definition;
  }
}
