import { Injectable } from '@nestjs/common';
import { InjectConnection } from '@nestjs/mongoose';
import type { Connection } from 'mongoose';

/** Port: which workflow (if any) still uses a provider in its latest version. */
export const PROVIDER_USAGE = Symbol('PROVIDER_USAGE');

export interface ProviderUsage {
  /** A workflow whose latest version uses the provider, or undefined. */
  findUser(providerId: string): Promise<{ workflowId: string; name?: string } | undefined>;
}

/**
 * Default: the `workflows` collection keeps, per workflow, the `providerIds` its latest version
 * uses (denormalised on each version, like `toolsetIds`); soft-deleted workflows do not count.
 * Workflows saved before `providerIds` existed have no such field, so they match nothing here:
 * missing is treated as empty. Read through the raw connection so this module does not depend on
 * the workflows feature.
 */
@Injectable()
export class WorkflowsProviderUsage implements ProviderUsage {
  constructor(@InjectConnection() private readonly connection: Connection) {}

  async findUser(providerId: string): Promise<{ workflowId: string; name?: string } | undefined> {
    const workflow = await this.connection
      .collection('workflows')
      .findOne({ providerIds: providerId, deletedAt: null }, { projection: { _id: 1, name: 1 } });
    if (!workflow) return undefined;
    return { workflowId: String(workflow._id), ...(typeof workflow.name === 'string' ? { name: workflow.name } : {}) };
  }
}
