import type { StoredWorkflow, WorkflowReferences, StoredWorkflowVersion, WorkflowDoc, WorkflowVersionDoc } from '#workflow';

/** The latest version of a workflow: its definition, when the workflow was created and last changed. */
export function toWorkflowView({ workflow, version }: StoredWorkflow) {
  return {
    ...toVersionView(version),
    createdAt: workflow.createdAt.toISOString(),
    updatedAt: version.createdAt.toISOString(),
    createdBy: workflow.createdBy ?? null,
    updatedBy: version.createdBy,
  };
}

/** One immutable version in full. */
export function toVersionView(version: StoredWorkflowVersion) {
  const { name, description, inputSchema, nodes, edges } = version.definition;
  return {
    id: version.workflowId,
    version: version.version,
    name,
    description: description ?? null,
    inputSchema: inputSchema ?? null,
    nodes,
    edges,
    createdAt: version.createdAt.toISOString(),
    createdBy: version.createdBy,
  };
}

export function toWorkflowSummary(doc: WorkflowDoc) {
  return {
    id: String(doc._id),
    name: doc.name,
    description: doc.description ?? null,
    latestVersion: doc.latestVersion,
    createdAt: doc.createdAt.toISOString(),
    updatedAt: doc.updatedAt.toISOString(),
    createdBy: doc.createdBy ?? null,
    updatedBy: doc.updatedBy ?? null,
  };
}

export function toVersionSummary(doc: WorkflowVersionDoc) {
  return { version: doc.version, createdAt: doc.createdAt.toISOString(), createdBy: doc.createdBy ?? null };
}

/** Toolsets a definition uses: `mcpTool` config `toolsetId`, `agent` config `toolsets[].toolsetId`. */
export function toolsetIdsOf(nodes: { config?: Record<string, unknown> }[]): string[] {
  const ids = new Set<string>();
  for (const { config } of nodes) {
    if (typeof config?.toolsetId === 'string') ids.add(config.toolsetId);
    if (Array.isArray(config?.toolsets)) {
      for (const entry of config.toolsets) {
        const id = (entry as { toolsetId?: unknown } | null)?.toolsetId;
        if (typeof id === 'string') ids.add(id);
      }
    }
  }
  return [...ids];
}

/** Providers a definition uses: `config.providerId` of `llm` and `agent` nodes. */
export function providerIdsOf(nodes: { type: string; config?: Record<string, unknown> }[]): string[] {
  const ids = new Set<string>();
  for (const { type, config } of nodes) {
    if ((type === 'llm' || type === 'agent') && typeof config?.providerId === 'string') ids.add(config.providerId);
  }
  return [...ids];
}

/** Everything a definition references that may not be deleted while it is the latest version. */
export function referencesOf(nodes: { type: string; config?: Record<string, unknown> }[]): WorkflowReferences {
  return { toolsetIds: toolsetIdsOf(nodes), providerIds: providerIdsOf(nodes) };
}
