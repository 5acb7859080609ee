import { z } from 'zod';
import { problemSchema } from '../../common/api-route.js';

/** Answers of /workflows as zod schemas (OpenAPI document). */

const iso = z.string().meta({ format: 'date-time' });

const definitionFields = {
  name: z.string(),
  description: z.string().nullable(),
  inputSchema: z.record(z.string(), z.unknown()).nullable(),
  nodes: z.array(z.looseObject({ id: z.string(), type: z.string() })),
  edges: z.array(z.looseObject({ source: z.string(), target: z.string() })),
};

export const workflowVersionSchema = z
  .object({ id: z.string(), version: z.number().int(), ...definitionFields, createdAt: iso, createdBy: z.string().nullable() })
  .meta({ id: 'WorkflowVersion' });

export const workflowSchema = workflowVersionSchema
  .extend({ updatedAt: iso, updatedBy: z.string().nullable() })
  .meta({ id: 'Workflow', description: 'The latest version; createdAt is when the workflow was created' });

export const workflowWithProblemsSchema = workflowSchema
  .extend({
    problems: z.array(problemSchema).meta({
      description:
        'What would stop the latest version from running as saved, found now: the save-time checks against the current tool ' +
        'snapshots (a tool gone, a new required input, an input of another type, a deleted toolset or provider); same codes and paths as a 400 WORKFLOW_INVALID. Empty when none.',
    }),
  })
  .meta({ id: 'WorkflowWithProblems', description: "The latest version and the problems today's toolsets give it" });

export const workflowSummarySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    latestVersion: z.number().int(),
    createdAt: iso,
    updatedAt: iso,
    createdBy: z.string().nullable(),
    updatedBy: z.string().nullable(),
  })
  .meta({ id: 'WorkflowSummary' });

export const versionSummarySchema = z
  .object({ version: z.number().int(), createdAt: iso, createdBy: z.string().nullable() })
  .meta({ id: 'WorkflowVersionSummary' });

export const validationReportSchema = z.object({ valid: z.boolean(), errors: z.array(problemSchema) });

export const versionParams = z.object({ id: z.string(), version: z.string().meta({ description: 'A version number (1, 2, …)' }) });
