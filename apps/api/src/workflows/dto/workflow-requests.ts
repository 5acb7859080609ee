import { z } from 'zod';

/**
 * The shape of a workflow body (SPEC §3). Only the shape: value sources, ids, handles, graph
 * and tool checks are the engine's `validateWorkflow`, which reports them all with their codes.
 */
const retrySchema = z.strictObject({
  maxAttempts: z.number().int().min(1).max(20),
  backoffMs: z.number().int().min(0).max(3_600_000),
});

const nodeSchema = z.strictObject({
  id: z.string(),
  type: z.string(),
  name: z.string().max(200).optional(),
  config: z.record(z.string(), z.unknown()).default({}),
  inputs: z.record(z.string(), z.unknown()).default({}),
  catchError: z.boolean().optional(),
  retry: retrySchema.optional(),
  timeoutMs: z.number().int().min(1).optional(),
});

const edgeSchema = z.strictObject({
  source: z.string(),
  sourceHandle: z.string().min(1).optional(),
  target: z.string(),
});

export const workflowBodySchema = z.strictObject({
  name: z.string().trim().min(1).max(200),
  description: z.string().max(5000).optional(),
  inputSchema: z.record(z.string(), z.unknown()).optional(),
  nodes: z.array(nodeSchema).max(5000),
  edges: z.array(edgeSchema).max(20_000).default([]),
});

export type WorkflowBody = z.output<typeof workflowBodySchema>;

export const versionParamSchema = z.coerce.number().int().min(1);

export type VersionParam = z.output<typeof versionParamSchema>;
