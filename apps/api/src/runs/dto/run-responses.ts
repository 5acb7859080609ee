import { z } from 'zod';
import { NODE_STATUSES, RUN_STATUSES } from '#workflow';
import { RUN_SOURCES } from '#workflow/nest';

/** Answers of /runs as zod schemas (OpenAPI document). */

const iso = z.string().meta({ format: 'date-time' });

export const runSchema = z
  .object({
    id: z.string(),
    workflowId: z.string(),
    version: z.number().int(),
    status: z.enum(RUN_STATUSES),
    inputs: z.record(z.string(), z.unknown()),
    outputs: z.record(z.string(), z.unknown()).nullable(),
    error: z.object({ code: z.string(), message: z.string(), nodeId: z.string().optional(), path: z.string().optional() }).nullable(),
    createdAt: iso,
    startedAt: iso.nullable(),
    finishedAt: iso.nullable(),
    durationMs: z.number().nullable(),
    stats: z.object({ nodesExecuted: z.number().int(), nodesSkipped: z.number().int(), nodesFailed: z.number().int() }).nullable(),
    cancelRequestedAt: iso.nullable(),
    retryOf: z.string().nullable(),
    replayOf: z.string().nullable(),
    parentRunId: z.string().nullable().meta({ description: "A sub-workflow's run: the run whose workflow node started it" }),
    triggeredBy: z.string().nullable(),
    source: z
      .enum(RUN_SOURCES)
      .meta({ description: 'api (REST), mcp (a tool call of a published MCP server), schedule (a firing) or webhook (a delivery)' }),
    mcpServerId: z.string().nullable(),
    scheduleId: z.string().nullable().meta({ description: 'source schedule: the schedule that fired' }),
    scheduledFor: iso.nullable().meta({ description: 'source schedule: the time of the firing (one run per firing)' }),
    webhookId: z.string().nullable().meta({ description: 'source webhook: the hook that received the delivery' }),
    deliveryId: z.string().nullable().meta({ description: 'source webhook: the delivery id (a redelivery starts no second run)' }),
    inputRequest: z
      .object({
        nodeId: z.string(),
        message: z.string(),
        requestedSchema: z.union([z.record(z.string(), z.unknown()), z.boolean()]),
        requestedAt: iso,
        resumeAt: iso.nullable().meta({ description: 'When the run resumes by itself if nobody answers (approval timeout, wait end)' }),
        authorization: z
          .object({
            toolsetId: z.string(),
            subject: z.string().meta({ description: 'input:<value> (the run input named as subject) or key:<API key id>' }),
            url: z.string().meta({ description: 'Open it in a browser; the OAuth callback then resumes the run' }),
            expiresAt: iso.meta({
              description: 'The URL works once, until then; the node fails MCP_AUTH_REQUIRED if nobody authorized by then',
            }),
          })
          .nullable()
          .meta({ description: "A perUser OAuth toolset's end user must authorize: the URL to open; else null" }),
      })
      .nullable()
      .meta({ description: 'While waiting: what a tool asked for (answer with POST /runs/{id}/input), which node, since when' }),
  })
  .meta({ id: 'Run' });

/** One node execution; node types add their details (MCP: toolsetId, tool, transport…; LLM: model, usage…). */
export const logItemSchema = z
  .looseObject({
    seq: z.number().int(),
    nodeId: z.string(),
    type: z.string(),
    name: z.string().nullable(),
    status: z.enum(NODE_STATUSES),
    attempt: z.number().int(),
    startedAt: iso,
    finishedAt: iso,
    durationMs: z.number(),
    inputs: z.record(z.string(), z.unknown()),
    inputsTruncated: z.boolean(),
    outputs: z.record(z.string(), z.unknown()),
    truncated: z.boolean(),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
    activeHandles: z.array(z.string()),
    replayed: z
      .boolean()
      .optional()
      .meta({ description: 'A replay (POST /runs/{id}/replay) took this outcome from the earlier run: the node was not executed again' }),
  })
  .meta({ id: 'LogItem' });

export const idempotencyHeaders = z.object({
  'idempotency-key': z
    .string()
    .optional()
    .meta({ description: 'The same key on the same workflow returns the same run (1–255 printable ASCII)' }),
});

export const replayedHeader = z.object({ 'idempotent-replayed': z.literal('true').optional() });
