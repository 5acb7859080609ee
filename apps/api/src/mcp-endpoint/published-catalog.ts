import { Inject, Injectable } from '@nestjs/common';
import type { Tool } from '@modelcontextprotocol/server';
import { nodeReferencesOf, type JsonSchema, type NodeRegistry, type WorkflowDefinition } from '#workflow';
import { NODE_REGISTRY, ToolsetCatalog, WorkflowRepository, type McpServerRecord, type PublishedToolDoc } from '#workflow/nest';
import { LiveWorkflows } from '../workflows/live-workflows.js';
import { outputSchemaOf } from './tool-output-schema.js';

/** One published tool as `tools/list` shows it, with the workflow version a call would run. */
export interface PublishedTool {
  workflowId: string;
  version: number;
  definition: WorkflowDefinition;
  tool: Tool;
}

/**
 * A workflow whose nodes reference nothing (no toolset, provider or other workflow — what each node
 * type declares through `references`) only computes over its inputs: it reads and changes nothing
 * outside. Anything else may, so nothing is claimed for it.
 */
function isClosed(definition: WorkflowDefinition, registry: NodeRegistry): boolean {
  return definition.nodes.every((node) => registry.get(node.type)) && nodeReferencesOf(registry, definition.nodes).length === 0;
}

/** MCP wants an object schema; the workflow checker already refused any other `type`. */
function objectSchema(schema: JsonSchema | undefined): Tool['inputSchema'] {
  if (typeof schema !== 'object') return { type: 'object', properties: {} };
  return { ...schema, type: 'object' } as Tool['inputSchema'];
}

interface ToolFacts {
  outputSchema: Tool['outputSchema'];
  closed: boolean;
}

export function describeTool(
  published: PublishedToolDoc,
  version: number,
  definition: WorkflowDefinition,
  { outputSchema, closed }: ToolFacts,
): PublishedTool {
  return {
    workflowId: published.workflowId,
    version,
    definition,
    tool: {
      name: published.name,
      title: definition.name,
      description: published.description ?? definition.description ?? `Runs the mcpflow workflow "${definition.name}".`,
      inputSchema: objectSchema(definition.inputSchema),
      ...(outputSchema && { outputSchema }),
      annotations: { title: definition.name, ...(closed && { readOnlyHint: true, destructiveHint: false, openWorldHint: false }) },
    },
  };
}

/** The tools of a published server, from the latest version of each workflow (a deleted one is left out). */
@Injectable()
export class PublishedCatalog {
  constructor(
    private readonly workflows: WorkflowRepository,
    private readonly live: LiveWorkflows,
    @Inject(NODE_REGISTRY) private readonly registry: NodeRegistry,
    private readonly catalog: ToolsetCatalog,
  ) {}

  /** `workflows`: the caller's key is limited to these; the tools of other workflows do not exist for it. */
  async tools(server: McpServerRecord, workflows: readonly string[] | null = null): Promise<PublishedTool[]> {
    const visible = server.tools.filter((published) => workflows === null || workflows.includes(published.workflowId));
    const tools = await Promise.all(visible.map((published) => this.describe(published, true)));
    return tools.filter((tool): tool is PublishedTool => tool !== undefined);
  }

  /** One tool, to call it: its output schema is left out (it costs the reads of the toolsets it derives from). */
  async tool(server: McpServerRecord, name: string, workflows: readonly string[] | null = null): Promise<PublishedTool | undefined> {
    const published = server.tools.find((tool) => tool.name === name && (workflows === null || workflows.includes(tool.workflowId)));
    return published && this.describe(published, false);
  }

  private async describe(published: PublishedToolDoc, withOutputSchema: boolean): Promise<PublishedTool | undefined> {
    const workflow = await this.live.find(published.workflowId);
    const version = workflow && (await this.workflows.findVersion(published.workflowId, workflow.latestVersion));
    if (!version) return undefined;
    const outputSchema = withOutputSchema ? await outputSchemaOf(version.definition, this.registry, this.catalog) : undefined;
    return describeTool(published, version.version, version.definition, {
      outputSchema,
      closed: isClosed(version.definition, this.registry),
    });
  }
}
