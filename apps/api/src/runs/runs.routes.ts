import { pageQuerySchema } from '../common/pagination.js';
import { idParams, pageOf, serverSentEvent, type RouteDescription } from '../common/api-route.js';
import { idempotencyHeaders, logItemSchema, replayedHeader, runSchema } from './dto/run-responses.js';
import {
  logPageQuerySchema,
  replayRunBodySchema,
  runInputBodySchema,
  runListQuerySchema,
  startRunBodySchema,
  waitQuerySchema,
} from './dto/run-requests.js';

/** How the run routes describe themselves in the OpenAPI document (`@ApiRoute(runRoutes.x)`). */

const queued = { description: 'Accepted: the run is queued (or still going after ?wait)', schema: runSchema, headers: replayedHeader };
const finished = { description: 'The run finished within ?wait', schema: runSchema, headers: replayedHeader };

const EVENTS = `Server-Sent Events: what already happened is replayed, then live events until the run ends.
Each event is \`event: <type>\` with a JSON \`data\` line: \`run.started\` {runId, at, run}, \`node.started\` {runId, at, nodeId, type, attempt},
\`node.finished\` {runId, at, item: LogItem}, \`run.waiting\` {runId, at, run: Run} (the run paused for input: \`run.inputRequest\`
says what; the stream stays open), \`run.finished\` {runId, at, run: Run}.`;

export const runRoutes = {
  start: {
    summary: 'Start a run of the latest (or a given) version; inputs are checked against its inputSchema',
    tags: ['runs'],
    params: idParams,
    query: waitQuerySchema,
    headers: idempotencyHeaders,
    body: startRunBodySchema,
    responses: { 202: queued, 200: finished },
    errors: { 400: ['VALIDATION_FAILED'], 404: ['NOT_FOUND'], 409: ['IDEMPOTENCY_KEY_REUSED'] },
  },
  list: {
    summary: 'List runs, newest first',
    query: pageQuerySchema.extend(runListQuerySchema.shape),
    responses: { 200: pageOf(runSchema) },
    errors: { 400: ['VALIDATION_FAILED'] },
  },
  get: {
    summary: 'A run: status, inputs, outputs, error, timings',
    params: idParams,
    responses: { 200: runSchema },
    errors: { 404: ['NOT_FOUND'] },
  },
  logs: {
    summary: "A run's execution log: one item per node execution, in order",
    params: idParams,
    query: logPageQuerySchema,
    responses: { 200: pageOf(logItemSchema) },
    errors: { 400: ['VALIDATION_FAILED'], 404: ['NOT_FOUND'] },
  },
  events: {
    summary: 'Follow a run live (Server-Sent Events)',
    params: idParams,
    responses: { 200: { description: EVENTS, contentType: 'text/event-stream', schema: serverSentEvent } },
    errors: { 404: ['NOT_FOUND'] },
  },
  delete: {
    summary: 'Delete a finished run with its log (a queued or running run: cancel it first)',
    params: idParams,
    responses: { 204: { description: 'Deleted' } },
    errors: { 404: ['NOT_FOUND'], 409: ['RUN_NOT_FINISHED'] },
  },
  cancel: {
    summary: 'Cancel a queued or running run (in-flight MCP calls are aborted)',
    params: idParams,
    responses: {
      200: { description: 'The run is canceled', schema: runSchema },
      202: { description: 'The cancel is on its way to the worker', schema: runSchema },
    },
    errors: { 404: ['NOT_FOUND'], 409: ['RUN_FINISHED'] },
  },
  input: {
    summary: 'Answer the request for input a waiting run waits on (run.inputRequest); the run resumes',
    description:
      'An `accept` answer (the default action) carries `content`, checked against `inputRequest.requestedSchema`; `decline` and `cancel` carry none. The answer is stored sealed and never shown.',
    params: idParams,
    body: runInputBodySchema,
    responses: { 202: { description: 'Answered: the run is queued again and resumes', schema: runSchema } },
    errors: { 400: ['VALIDATION_FAILED'], 404: ['NOT_FOUND'], 409: ['RUN_NOT_WAITING'] },
  },
  retry: {
    summary: 'Start a new run with the same inputs as a finished one',
    params: idParams,
    query: waitQuerySchema,
    headers: idempotencyHeaders,
    responses: { 202: queued, 200: finished },
    errors: { 400: ['VALIDATION_FAILED'], 404: ['NOT_FOUND'], 409: ['RUN_NOT_FINISHED', 'IDEMPOTENCY_KEY_REUSED'] },
  },
  replay: {
    summary: 'Start a new run of the same version from a node: the nodes upstream of it take their outputs from this run',
    description:
      'The nodes upstream of `fromNodeId` are not executed again: their records are copied from this run into the new one (`replayed: true` in the log; no tool is called). `fromNodeId` and every node not upstream of it execute. The new run links this one as `replayOf`. Secret (writeOnly) inputs are not carried over: give them again in `inputs`.',
    params: idParams,
    query: waitQuerySchema,
    body: replayRunBodySchema,
    responses: { 202: queued, 200: finished },
    errors: { 400: ['VALIDATION_FAILED'], 404: ['NOT_FOUND'], 409: ['RUN_NOT_FINISHED', 'NODE_NOT_REACHED'] },
  },
} satisfies Record<string, RouteDescription>;
