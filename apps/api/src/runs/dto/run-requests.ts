import { z } from 'zod';
import { RUN_STATUSES } from '#workflow';
import { isStoredId } from '#workflow/nest';

/** The longest `?wait=` honoured (ms): a longer wait answers like this one (202 if still running). */
export const MAX_WAIT_MS = 120_000;

export const startRunBodySchema = z.strictObject({
  inputs: z.record(z.string(), z.unknown()).default({}),
  version: z.number().int().min(1).optional(),
});

/** `POST /runs/:id/replay`: a new run from `fromNodeId` on, the nodes upstream of it taken from the earlier run. */
export const replayRunBodySchema = z.strictObject({
  fromNodeId: z.string().min(1).meta({ description: 'The node the replay executes from (it and everything not upstream of it run again)' }),
  inputs: z
    .record(z.string(), z.unknown())
    .optional()
    .meta({ description: "The replay's run inputs; default the earlier run's, without its secret (writeOnly) inputs" }),
  version: z.number().int().min(1).optional().meta({
    description: "Run another version of the workflow (default the earlier run's); refused when a node upstream of fromNodeId differs",
  }),
});

export const waitQuerySchema = z.object({
  wait: z.coerce.number().int().min(0).optional(),
});

/** Printable ASCII without spaces, like the IETF draft's examples (UUIDs, ULIDs, hashes). */
export const idempotencyKeySchema = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[\x21-\x7e]+$/, 'must be 1–255 printable ASCII characters without spaces');

const objectId = z.string().refine((value) => isStoredId(value), 'not a valid id');

export const runListQuerySchema = z.object({
  workflowId: objectId.optional(),
  status: z.enum(RUN_STATUSES).optional(),
  triggeredBy: objectId.optional(),
  /** The runs a run's `workflow` nodes started. */
  parentRunId: objectId.optional(),
});

/** `GET /runs/:id/logs?limit&cursor`: in execution order; the cursor is the last `seq` seen. */
export const logPageQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(500).default(100),
  cursor: z.coerce.number().int().min(0).optional(),
});

/** `POST /runs/:id/input`: accept (with `content`, checked against the requested schema), decline or cancel. */
export const runInputBodySchema = z.strictObject({
  action: z.enum(['accept', 'decline', 'cancel']).default('accept'),
  content: z.record(z.string(), z.unknown()).optional(),
});

export type RunInputBody = z.output<typeof runInputBodySchema>;
export type ReplayRunBody = z.output<typeof replayRunBodySchema>;
export type StartRunBody = z.output<typeof startRunBodySchema>;
export type RunListQuery = z.output<typeof runListQuerySchema>;
export type LogPageQuery = z.output<typeof logPageQuerySchema>;
