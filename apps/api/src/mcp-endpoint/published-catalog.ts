import { Injectable } from '@nestjs/common';
import type { Tool } from '@modelcontextprotocol/server';
import { END_NODE_TYPE, START_NODE_TYPE, WorkflowRepository, type JsonSchema, type McpServerRecord, type PublishedToolDoc, type WorkflowDefinition } from '#workflow';

/** One published tool as `tools/list` shows it, with the workflow version a call would run. */
export interface PublishedTool {
  workflowId: string;
  version: number;
  definition: WorkflowDefinition;
  tool: Tool;
}

/** Node types that only compute over the run's own values: a workflow made of them alone touches nothing outside. */
const CLOSED_NODE_TYPES = new Set([START_NODE_TYPE, END_NODE_TYPE, 'template', 'condition']);

/** MCP wants an object schema; the workflow checker already refused any other `type`. */
function objectSchema(schema: JsonSchema | undefined): Tool['inputSchema'] {
  if (typeof schema !== 'object') return { type: 'object', properties: {} };
  return { ...schema, type: 'object' } as Tool['inputSchema'];
}

function literalSchema(value: unknown): Record<string, unknown> {
  if (value === null) return { type: 'null' };
  if (Array.isArray(value)) return { type: 'array' };
  const type = typeof value;
  return type === 'string' || type === 'number' || type === 'boolean' || type === 'object' ? { type } : {};
}

/**
 * The run's outputs are the `end` node's inputs. What each one is can be told without running it
 * when it is a template or a template node's text (a string), a literal, or a workflow input as
 * such; anything else is left
 * open (`{}`). No key is `required`: an output whose value is undefined is absent from the JSON.
 */
export function outputSchemaOf(definition: WorkflowDefinition): Tool['outputSchema'] {
  const ends = definition.nodes.filter((node) => node.type === END_NODE_TYPE);
  if (ends.length !== 1) return undefined;
  const inputProperties = typeof definition.inputSchema === 'object' ? (definition.inputSchema.properties as Record<string, unknown> | undefined) : undefined;
  const startId = definition.nodes.find((node) => node.type === START_NODE_TYPE)?.id;
  const templateIds = new Set(definition.nodes.filter((node) => node.type === 'template').map((node) => node.id));
  const properties: Record<string, unknown> = {};
  for (const [key, source] of Object.entries(ends[0].inputs ?? {})) {
    if ('template' in source) properties[key] = { type: 'string' };
    else if ('value' in source) properties[key] = literalSchema(source.value);
    else {
      const [nodeId, outputKey, ...rest] = source.ref.split('.');
      const fromInput = nodeId === startId && rest.length === 0 ? inputProperties?.[outputKey] : undefined;
      const fromTemplate = templateIds.has(nodeId) && outputKey === 'text' && rest.length === 0;
      properties[key] = fromTemplate ? { type: 'string' } : typeof fromInput === 'object' && fromInput !== null ? fromInput : {};
    }
  }
  return { type: 'object', properties } as Tool['outputSchema'];
}

export function describeTool(published: PublishedToolDoc, version: number, definition: WorkflowDefinition): PublishedTool {
  const closed = definition.nodes.every((node) => CLOSED_NODE_TYPES.has(node.type));
  const outputSchema = outputSchemaOf(definition);
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
      // Only what the graph proves: without MCP, LLM or agent nodes a run reads and changes nothing outside.
      annotations: { title: definition.name, ...(closed && { readOnlyHint: true, destructiveHint: false, openWorldHint: false }) },
    },
  };
}

/** The tools of a published server, from the latest version of each workflow (a deleted one is left out). */
@Injectable()
export class PublishedCatalog {
  constructor(private readonly workflows: WorkflowRepository) {}

  async tools(server: McpServerRecord): Promise<PublishedTool[]> {
    const tools = await Promise.all(server.tools.map((published) => this.describe(published)));
    return tools.filter((tool): tool is PublishedTool => tool !== undefined);
  }

  async tool(server: McpServerRecord, name: string): Promise<PublishedTool | undefined> {
    const published = server.tools.find((tool) => tool.name === name);
    return published && this.describe(published);
  }

  private async describe(published: PublishedToolDoc): Promise<PublishedTool | undefined> {
    const workflow = await this.workflows.findLive(published.workflowId);
    const version = workflow && (await this.workflows.findVersion(published.workflowId, workflow.latestVersion));
    return version ? describeTool(published, version.version, version.definition) : undefined;
  }
}
