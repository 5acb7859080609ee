import type { NormalizedToolResult, ServerInfo, ToolSnapshot } from '#mcp';
import type { ResolvedHttpTransport, ToolsetRecord, ToolsetSummary, TransportMode } from '#workflow';
import { MASK } from './toolset-requests.js';

/** Response bodies of /toolsets. Header values never appear: every one is shown as "***". */

export interface ToolView {
  name: string;
  title?: string;
  description?: string;
  usable: boolean;
  unusableReason?: string;
  inputs: ToolSnapshot['inputs'];
  outputs?: ToolSnapshot['outputs'];
  inputSchema: ToolSnapshot['inputSchema'];
  outputSchema?: ToolSnapshot['outputSchema'];
  annotations?: ToolSnapshot['annotations'];
}

export interface ToolsetSummaryView {
  id: string;
  name: string;
  url: string;
  headers: Record<string, string>;
  /** The transport the server spoke at the last listing. */
  transport: ResolvedHttpTransport;
  /** What the toolset asks for (`auto` probes Streamable HTTP, then legacy SSE). */
  requestedTransport: TransportMode;
  timeoutMs: number | null;
  serverInfo: ServerInfo;
  toolCount: number;
  toolsRefreshedAt: string;
  /** Ids of the API keys that created the toolset and last changed it. */
  createdBy: string | null;
  updatedBy: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface ToolsetView extends ToolsetSummaryView {
  tools: ToolView[];
}

export type ToolsetPreviewView = Omit<ToolsetView, 'id' | 'createdAt' | 'updatedAt' | 'toolsRefreshedAt' | 'createdBy' | 'updatedBy'>;

export function maskHeaders(names: Iterable<string>): Record<string, string> {
  return Object.fromEntries([...names].map((name) => [name, MASK]));
}

export function toolView(tool: ToolSnapshot): ToolView {
  const view: ToolView = { name: tool.name, usable: tool.usable, inputs: tool.inputs, inputSchema: tool.inputSchema };
  if (tool.title !== undefined) view.title = tool.title;
  if (tool.description !== undefined) view.description = tool.description;
  if (tool.unusableReason !== undefined) view.unusableReason = tool.unusableReason;
  if (tool.outputs !== undefined) view.outputs = tool.outputs;
  if (tool.outputSchema !== undefined) view.outputSchema = tool.outputSchema;
  if (tool.annotations !== undefined) view.annotations = tool.annotations;
  return view;
}

export function toolsetSummaryView(toolset: ToolsetSummary): ToolsetSummaryView {
  return {
    id: toolset.id,
    name: toolset.name,
    url: toolset.url,
    headers: maskHeaders(toolset.headerNames),
    transport: toolset.resolvedTransport,
    requestedTransport: toolset.transport,
    timeoutMs: toolset.timeoutMs ?? null,
    serverInfo: toolset.serverInfo,
    toolCount: toolset.toolCount,
    toolsRefreshedAt: toolset.toolsRefreshedAt.toISOString(),
    createdBy: toolset.createdBy,
    updatedBy: toolset.updatedBy,
    createdAt: toolset.createdAt.toISOString(),
    updatedAt: toolset.updatedAt.toISOString(),
  };
}

export function toolsetView(toolset: ToolsetRecord): ToolsetView {
  return { ...toolsetSummaryView(toolset), tools: toolset.tools.map(toolView) };
}

export interface ToolCallView extends NormalizedToolResult {
  tool: string;
  transport: ResolvedHttpTransport;
  durationMs: number;
}
