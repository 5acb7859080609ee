import { Injectable } from '@nestjs/common';
import { InjectConnection } from '@nestjs/mongoose';
import type { Connection } from 'mongoose';

/** Port: which workflow (if any) still uses a toolset in its latest version. */
export const TOOLSET_USAGE = Symbol('TOOLSET_USAGE');

export interface ToolsetUsage {
  /** A workflow whose latest version uses the toolset, or undefined. */
  findUser(toolsetId: string): Promise<{ workflowId: string; name?: string } | undefined>;
}

/**
 * Default: the `workflows` collection keeps, per workflow, the `toolsetIds` its latest version
 * uses (denormalised on each version); soft-deleted workflows (`deletedAt` set) do not count.
 * Read through the raw connection so this module does not depend on the workflows feature.
 */
@Injectable()
export class WorkflowsToolsetUsage implements ToolsetUsage {
  constructor(@InjectConnection() private readonly connection: Connection) {}

  async findUser(toolsetId: string): Promise<{ workflowId: string; name?: string } | undefined> {
    const workflow = await this.connection
      .collection('workflows')
      .findOne({ toolsetIds: toolsetId, deletedAt: null }, { projection: { _id: 1, name: 1 } });
    if (!workflow) return undefined;
    return { workflowId: String(workflow._id), ...(typeof workflow.name === 'string' ? { name: workflow.name } : {}) };
  }
}
