import type { StoredWorkflow, StoredWorkflowVersion, WorkflowRecord, WorkflowVersionSummary } from '#workflow/nest';

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

export function toWorkflowSummary(workflow: WorkflowRecord) {
  return {
    id: workflow.id,
    name: workflow.name,
    description: workflow.description ?? null,
    latestVersion: workflow.latestVersion,
    createdAt: workflow.createdAt.toISOString(),
    updatedAt: workflow.updatedAt.toISOString(),
    createdBy: workflow.createdBy,
    updatedBy: workflow.updatedBy,
  };
}

export function toVersionSummary(version: WorkflowVersionSummary) {
  return { version: version.version, createdAt: version.createdAt.toISOString(), createdBy: version.createdBy };
}
