import { Injectable } from '@nestjs/common';
import { WorkflowRepository, type PublishedToolDoc } from '#workflow/nest';
import { InvalidRequestError, type ProblemDetail } from '../common/api-errors.js';
import { TOOL_NAME } from './dto/mcp-server-requests.js';

export interface RequestedTool {
  workflowId: string;
  name?: string;
  description?: string;
}

/** A workflow name as an MCP tool name: other characters become `_`, at most 128 characters. */
export function toolNameOf(workflowName: string): string {
  const name = workflowName
    .trim()
    .replace(/[^A-Za-z0-9_.-]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 128);
  return TOOL_NAME.test(name) ? name : 'workflow';
}

/**
 * The tools a server will publish: every workflow must be live, a tool without a name takes its
 * workflow's (made unique with `_2`, `_3`… only against other defaults), and the final names are
 * unique. Every problem is reported with its path, nothing is saved otherwise.
 */
@Injectable()
export class PublishedToolNames {
  constructor(private readonly workflows: WorkflowRepository) {}

  async resolve(requested: RequestedTool[]): Promise<PublishedToolDoc[]> {
    const problems: ProblemDetail[] = [];
    const workflows = await Promise.all(requested.map((tool) => this.workflows.findLive(tool.workflowId)));
    const explicit = new Set(requested.flatMap((tool) => (tool.name ? [tool.name] : [])));
    const taken = new Set<string>();
    const tools = requested.map((tool, index): PublishedToolDoc => {
      const workflow = workflows[index];
      if (!workflow) {
        problems.push({
          path: `/tools/${index}/workflowId`,
          code: 'UNKNOWN_WORKFLOW',
          message: `workflow ${tool.workflowId} does not exist`,
        });
      }
      let name = tool.name ?? toolNameOf(workflow?.name ?? 'workflow');
      if (!tool.name) {
        const base = name.slice(0, 120);
        for (let n = 2; explicit.has(name) || taken.has(name); n += 1) name = `${base}_${n}`;
      }
      if (taken.has(name)) {
        problems.push({
          path: `/tools/${index}/name`,
          code: 'DUPLICATE_TOOL_NAME',
          message: `tool name "${name}" is used twice in this server`,
        });
      }
      taken.add(name);
      return { workflowId: tool.workflowId, name, ...(tool.description !== undefined && { description: tool.description }) };
    });
    if (problems.length) throw new InvalidRequestError(problems, 'The published tools are invalid');
    return tools;
  }
}
