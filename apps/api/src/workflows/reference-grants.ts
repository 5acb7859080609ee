import { Inject, Injectable } from '@nestjs/common';
import { nodeReferencesOf, type NodeRegistry, type WorkflowDefinition } from '#workflow';
import { ApiKeyRepository, NODE_REGISTRY, WorkflowRepository } from '#workflow/nest';
import type { Principal } from '../api-keys/api-key-authenticator.js';
import { ApiError } from '../common/api-errors.js';
import { LiveWorkflows } from './live-workflows.js';

/** The toolsets and providers a workflow-limited key may reference in one workflow. */
export interface ReferenceGrant {
  toolsetIds: ReadonlySet<string>;
  providerIds: ReadonlySet<string>;
}

export const OUTSIDE_GRANT =
  'This API key is limited to some workflows and this version uses toolsets or providers that only a key without that limit may choose';

/** Whether a grant covers a reference (kinds without a grant, e.g. sub-workflows, are checked elsewhere). */
export function granted(grant: ReferenceGrant, kind: string, id: string): boolean {
  if (kind === 'toolset') return grant.toolsetIds.has(id);
  if (kind === 'provider') return grant.providerIds.has(id);
  return true;
}

/**
 * The rule for keys limited to workflows: such a key does not choose what a workflow connects to.
 * Its grant in a workflow is the toolsets and providers referenced by the versions saved by keys
 * without a workflow limit (or before keys existed); a version it saves may reference nothing
 * else, and it may not run a version that does (one saved before this rule).
 */
@Injectable()
export class ReferenceGrants {
  constructor(
    private readonly workflows: WorkflowRepository,
    private readonly apiKeys: ApiKeyRepository,
    @Inject(NODE_REGISTRY) private readonly registry: NodeRegistry,
    private readonly live: LiveWorkflows,
  ) {}

  /**
   * The grant of a caller in a workflow; undefined when the caller has no workflow limit (everything is granted).
   * The same for every limited key, so kept until the workflow changes (a stale one can only lack a newer version's references).
   */
  async of(caller: Pick<Principal, 'workflows'> | undefined, workflowId: string): Promise<ReferenceGrant | undefined> {
    if (!caller?.workflows) return undefined;
    return this.live.derived(workflowId, 'grant', () => this.grantIn(workflowId));
  }

  private async grantIn(workflowId: string): Promise<ReferenceGrant> {
    const trusted = new Map<string, boolean>();
    const toolsetIds = new Set<string>();
    const providerIds = new Set<string>();
    for (const version of await this.workflows.findVersions(workflowId)) {
      if (!(await this.savedByUnlimitedKey(version.createdBy, trusted))) continue;
      for (const { kind, id } of nodeReferencesOf(this.registry, version.definition.nodes)) {
        if (kind === 'toolset') toolsetIds.add(id);
        if (kind === 'provider') providerIds.add(id);
      }
    }
    return { toolsetIds, providerIds };
  }

  /** Whether a limited key's run of this version would use toolsets or providers outside its grant. */
  async runOutsideGrant(
    caller: Pick<Principal, 'workflows'> | undefined,
    workflowId: string,
    definition: WorkflowDefinition,
  ): Promise<boolean> {
    const grant = await this.of(caller, workflowId);
    return grant !== undefined && nodeReferencesOf(this.registry, definition.nodes).some(({ kind, id }) => !granted(grant, kind, id));
  }

  /** Refuses (403) a run by a limited key of a version that references what its grant does not hold. */
  async refuseRunOutsideGrant(
    caller: Pick<Principal, 'workflows'> | undefined,
    workflowId: string,
    definition: WorkflowDefinition,
  ): Promise<void> {
    if (await this.runOutsideGrant(caller, workflowId, definition)) throw new ApiError('FORBIDDEN', OUTSIDE_GRANT);
  }

  private async savedByUnlimitedKey(keyId: string | null, known: Map<string, boolean>): Promise<boolean> {
    if (keyId === null) return true;
    let unlimited = known.get(keyId);
    if (unlimited === undefined) {
      // A key that no longer exists cannot be vouched for.
      const key = await this.apiKeys.findById(keyId);
      unlimited = key !== undefined && key.workflows === null;
      known.set(keyId, unlimited);
    }
    return unlimited;
  }
}
