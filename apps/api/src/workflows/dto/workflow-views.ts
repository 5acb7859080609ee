import type { StoredWorkflow, StoredWorkflowVersion, WorkflowDoc, WorkflowVersionDoc } from '#workflow/nest';

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
