import { Schema, type Types } from 'mongoose';

/**
 * A published MCP server: a named set of workflows offered as MCP tools at `/mcp/<id>`. Each tool
 * names its workflow (always its latest version) and the tool name clients see.
 */
export const MCP_SERVER_MODEL = 'McpServer';

export interface PublishedToolDoc {
  workflowId: string;
  /** The MCP tool name, unique in the server (fixed at publication: a workflow rename does not change it). */
  name: string;
  /** Overrides the workflow's own description in `tools/list`. */
  description?: string;
}

export interface McpServerDoc {
  _id: Types.ObjectId;
  name: string;
  description?: string;
  tools: PublishedToolDoc[];
  /** The tools' workflow ids, indexed: `DELETE /workflows/:id` refuses while one is published. */
  workflowIds: string[];
  createdAt: Date;
  updatedAt: Date;
}

export const McpServerSchema = new Schema<McpServerDoc>(
  {
    name: { type: String, required: true },
    description: { type: String },
    tools: { type: [{ workflowId: String, name: String, description: String, _id: false }], default: [] },
    workflowIds: { type: [String], default: [] },
  },
  { collection: 'mcp_servers', timestamps: true, versionKey: false, minimize: false },
);
McpServerSchema.index({ workflowIds: 1 });
