import type { WorkflowReferences } from '#workflow/nest';

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
