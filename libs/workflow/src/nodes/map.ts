import { ENGINE_ERROR_CODES, EngineError } from '../engine/errors.js';
import type {
  NodeDefinition,
  NodeExecutionContext,
  NodeExecutor,
  SubgraphOutcome,
  TypedField,
  ValidationIssue,
  WorkflowDefinition,
} from '../engine/types.js';

/** Items in flight at once: default and most. */
export const MAP_CONCURRENCY = { default: 4, max: 32 } as const;
/** Items one map takes at most (the run fails with MAP_TOO_MANY_ITEMS beyond). */
export const MAP_MAX_ITEMS = 1000;

const ON_ITEM_ERROR = ['fail', 'collect'] as const;
type OnItemError = (typeof ON_ITEM_ERROR)[number];

interface MapConfig {
  body: WorkflowDefinition;
  concurrency: number;
  onItemError: OnItemError;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The body's nodes as the API gives a workflow's (config and inputs default to {}). */
function bodyNodes(nodes: unknown): NodeDefinition[] {
  if (!Array.isArray(nodes)) return [];
  return nodes.map(
    (node: unknown) => (isRecord(node) ? { ...node, config: node.config ?? {}, inputs: node.inputs ?? {} } : node) as NodeDefinition,
  );
}

function readConfig(node: NodeDefinition, nodePath: string): { config: MapConfig; issues: ValidationIssue[] } {
  const { body, concurrency = MAP_CONCURRENCY.default, onItemError = 'fail' } = node.config ?? {};
  const issues: ValidationIssue[] = [];
  const issue = (key: string, message: string) => issues.push({ path: `${nodePath}/config/${key}`, code: 'INVALID_CONFIG', message });
  if (!isRecord(body) || !Array.isArray(body.nodes) || !Array.isArray(body.edges)) issue('body', 'map needs a body {nodes, edges}');
  if (!Number.isInteger(concurrency) || (concurrency as number) < 1 || (concurrency as number) > MAP_CONCURRENCY.max) {
    issue('concurrency', `concurrency must be an integer from 1 to ${MAP_CONCURRENCY.max}`);
  }
  if (!ON_ITEM_ERROR.includes(onItemError as OnItemError)) issue('onItemError', 'onItemError must be "fail" or "collect"');
  const definition = isRecord(body) ? body : { nodes: [], edges: [] };
  return {
    config: {
      body: {
        name: `${node.id} body`,
        inputSchema: BODY_INPUT_SCHEMA,
        nodes: bodyNodes(definition.nodes),
        edges: definition.edges as [],
      },
      concurrency: Number(concurrency),
      onItemError: onItemError as OnItemError,
    },
    issues,
  };
}

/** What the body's `start` publishes. */
const BODY_INPUT_SCHEMA = {
  type: 'object',
  properties: {
    item: { description: 'the item' },
    index: { type: 'integer', description: "the item's place in items, from 0" },
    context: { description: "the map's context input, the same for every item" },
  },
};

const INPUTS: TypedField[] = [
  {
    key: 'items',
    label: 'Items',
    description: `the list to map over (at most ${MAP_MAX_ITEMS})`,
    valueType: 'array<any>',
    required: true,
    schema: { type: 'array' },
  },
  {
    key: 'context',
    label: 'Context',
    description: 'a value every item sees as start.context',
    valueType: 'any',
    required: false,
    schema: true,
  },
];

const OUTPUTS: TypedField[] = [
  {
    key: 'results',
    label: 'results',
    description: "per item, in input order: the body's end outputs (onItemError fail), or {ok, output | error} (collect)",
    valueType: 'array<any>',
    required: false,
    schema: { type: 'array' },
  },
  { key: 'failed', label: 'failed', description: 'how many items failed (collect)', valueType: 'integer', required: false, schema: true },
];

type ItemResult = { ok: true; output: Record<string, unknown> } | { ok: false; error: { code: string; message: string; nodeId?: string } };

function resultOf(outcome: SubgraphOutcome): ItemResult {
  if (outcome.status === 'succeeded') return { ok: true, output: outcome.outputs };
  const { code, message, nodeId } = outcome.error ?? { code: ENGINE_ERROR_CODES.nodeExecutionFailed, message: 'the item did not finish' };
  return { ok: false, error: { code, message, ...(nodeId && { nodeId }) } };
}

/**
 * Runs the items through the body, `concurrency` at a time; with `fail`, the first failure stops
 * the rest. An item whose body waits (an approval, a wait, a sub-workflow's run) keeps its place
 * among the `concurrency` in flight: its lane takes no further item, and once nothing else can go
 * on the node waits for all of them (see `waitForItems`).
 */
async function mapItems(context: NodeExecutionContext, config: MapConfig, items: unknown[]): Promise<ItemResult[]> {
  const { runSubgraph, signal, inputs } = context;
  if (!runSubgraph) throw new Error('map nodes need the engine to run their body');
  const stopItems = new AbortController();
  const onStop = (): void => stopItems.abort(signal.reason);
  if (signal.aborted) onStop();
  signal.addEventListener('abort', onStop, { once: true });
  const results: ItemResult[] = new Array(items.length);
  let next = 0;
  let failure: ItemResult | undefined;
  const waiting = new Map<number, string[]>();
  const lane = async (): Promise<void> => {
    while (next < items.length && !stopItems.signal.aborted) {
      const index = next++;
      const outcome = await runSubgraph({
        workflow: config.body,
        inputs: { item: items[index], index, ...(inputs.context !== undefined && { context: inputs.context }) },
        index,
        signal: stopItems.signal,
      });
      if (outcome.status === 'waiting') {
        waiting.set(index, outcome.waitingNodes ?? []);
        return;
      }
      results[index] = resultOf(outcome);
      if (!results[index].ok && config.onItemError === 'fail' && !failure) {
        failure = results[index];
        stopItems.abort(new EngineError(ENGINE_ERROR_CODES.runCanceled, `canceled: item ${index} failed`));
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(config.concurrency, items.length) }, lane));
  } finally {
    signal.removeEventListener('abort', onStop);
  }
  if (signal.aborted) throw signal.reason;
  if (failure && !failure.ok) {
    const index = results.indexOf(failure);
    throw new EngineError(failure.error.code, `item ${index} failed: ${failure.error.message}`, { details: { itemIndex: index } });
  }
  if (waiting.size > 0) waitForItems(waiting, results);
  return results;
}

/**
 * Pauses the map until its waiting items can go on: the node ends INPUT_REQUIRED naming its items'
 * waiting nodes (`details.waitingNodes`, as the run names them: `each[3]/ask`), which the engine
 * makes the run's, so the run goes `waiting` holding no worker once nothing else can progress.
 * When the run resumes, the map executes again: finished items are read back from the log (their
 * nodes are not executed again) and the waiting ones go on from their recorded executions.
 */
function waitForItems(waiting: Map<number, string[]>, results: ItemResult[]): never {
  const indexes = [...waiting.keys()].sort((a, b) => a - b);
  const finished = results.filter((result) => result !== undefined).length;
  throw new EngineError(
    ENGINE_ERROR_CODES.inputRequired,
    `${indexes.length} item(s) wait (items ${indexes.join(', ')}); ${finished} of ${results.length} finished`,
    { details: { waitingItems: indexes, waitingNodes: indexes.flatMap((index) => waiting.get(index) ?? []), finishedItems: finished } },
  );
}

/**
 * Runs a body (a sub-graph inside the node: its own `start` receiving `item`, `index` and
 * `context`, its own `end`) over each item, `concurrency` at a time; results in input order.
 * Each item's node executions are in the run's log as `<mapId>[<index>]/<nodeId>`, and a resumed
 * run keeps what already finished: a finished item is not executed again. Items may wait (a
 * sub-workflow, an approval): the map then waits too, and goes on when the run resumes.
 */
export const mapNode: NodeExecutor = {
  type: 'map',
  describeType: () => ({
    title: 'Map',
    description: 'Runs a body (a sub-graph with its own start and end) over each item of a list, concurrently; results in input order.',
    configSchema: {
      type: 'object',
      properties: {
        body: {
          type: 'object',
          description: 'the sub-graph run per item: {nodes, edges}; its start publishes item, index and context',
          properties: { nodes: { type: 'array' }, edges: { type: 'array' } },
          required: ['nodes', 'edges'],
        },
        concurrency: { type: 'integer', minimum: 1, maximum: MAP_CONCURRENCY.max, default: MAP_CONCURRENCY.default },
        onItemError: { enum: [...ON_ITEM_ERROR], default: 'fail' },
      },
      required: ['body'],
      additionalProperties: false,
    },
    handles: ['out'],
    inputs: INPUTS,
    outputs: OUTPUTS,
  }),
  validate: async ({ node, nodePath, validateSubgraph }) => {
    const { config, issues } = readConfig(node, nodePath);
    if (issues.some((problem) => problem.path.endsWith('/body')) || !validateSubgraph) return issues;
    return [...issues, ...(await validateSubgraph(config.body, `${nodePath}/config/body`))];
  },
  describeInputs: async () => INPUTS,
  describeOutputs: async () => OUTPUTS,
  subgraphs: (node) => [{ path: '/config/body', definition: readConfig(node, '').config.body }],
  execute: async (context) => {
    const { config } = readConfig(context.node, '');
    const items = context.inputs.items;
    if (!Array.isArray(items)) throw new EngineError(ENGINE_ERROR_CODES.nodeInputInvalid, 'items must be an array');
    if (items.length > MAP_MAX_ITEMS) {
      throw new EngineError(ENGINE_ERROR_CODES.mapTooManyItems, `items has ${items.length} entries; a map takes at most ${MAP_MAX_ITEMS}`);
    }
    const results = await mapItems(context, config, items);
    const failed = results.filter((result) => !result.ok).length;
    const shown = config.onItemError === 'collect' ? results : results.map((result) => (result.ok ? result.output : null));
    return { outputs: { results: shown, failed }, details: { items: items.length, failed } };
  },
};
