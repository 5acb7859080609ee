/**
 * Runs one `llm` or `agent` node (start → node → end) through the real engine, with the real
 * openai-backed LlmClient pointed at a scripted fake OpenAI server. The provider resolver is a
 * fixed map here; the REST e2e tests use the Mongo one.
 */
import {
  createDefaultNodeRegistry,
  createInMemoryRunStore,
  LLM_CLIENT_EXTRA,
  llmNodeExecutors,
  runWorkflow,
  systemClock,
  type EngineLimits,
  type ExecutionRecord,
  type NodeDefinition,
  type RunOutcome,
  type ToolCatalog,
  type ToolInvoker,
} from '#workflow';
import { createOpenAiLlmClient } from '#workflow/nest';
import { startFakeOpenAiServer, type FakeOpenAiServer } from './fake-openai-server.js';

export const PROVIDER_ID = 'provider-1';

export interface NodeRun {
  outcome: RunOutcome;
  /** The node's execution record (the log item). */
  record: ExecutionRecord;
  records: ExecutionRecord[];
}

export interface RunOptions {
  inputs?: Record<string, unknown>;
  signal?: AbortSignal;
  limits?: Partial<EngineLimits>;
  tools?: ToolInvoker;
  catalog?: ToolCatalog;
}

export interface LlmHarness {
  server: FakeOpenAiServer;
  apiKey: string;
  run(node: NodeDefinition, options?: RunOptions): Promise<NodeRun>;
  close(): Promise<void>;
}

const noTools: ToolInvoker = {
  callTool: async () => {
    throw new Error('no tools in this test');
  },
};
const emptyCatalog: ToolCatalog = { getTool: async () => undefined, listTools: async () => undefined };

let runs = 0;

export interface HarnessOptions {
  apiKey?: string;
  maxRetries?: number;
  /** Where the provider points; the fake server by default. */
  baseURL?: string;
  fetch?: typeof fetch;
}

export async function startLlmHarness(options: HarnessOptions = {}): Promise<LlmHarness> {
  const server = await startFakeOpenAiServer();
  const apiKey = options.apiKey ?? `sk-test-${Math.random().toString(36).slice(2)}`;
  const baseURL = options.baseURL ?? server.baseURL;
  const llm = createOpenAiLlmClient({
    providers: { resolve: async (id) => (id === PROVIDER_ID ? { baseURL, apiKey } : undefined) },
    maxRetries: options.maxRetries,
    fetch: options.fetch,
  });
  const registry = createDefaultNodeRegistry();
  llmNodeExecutors.forEach((executor) => registry.register(executor));
  return {
    server,
    apiKey,
    async run(node, runOptions = {}) {
      const store = createInMemoryRunStore();
      const runId = `run-${(runs += 1)}`;
      const outcome = await runWorkflow({
        runId,
        workflow: {
          name: 'llm test',
          nodes: [
            { id: 'start', type: 'start', config: {}, inputs: {} },
            node,
            { id: 'end', type: 'end', config: {}, inputs: { text: { ref: `${node.id}.text` } } },
          ],
          edges: [
            { source: 'start', target: node.id },
            { source: node.id, target: 'end' },
          ],
        },
        inputs: runOptions.inputs ?? {},
        registry,
        services: {
          tools: runOptions.tools ?? noTools,
          catalog: runOptions.catalog ?? emptyCatalog,
          clock: systemClock,
          extras: { [LLM_CLIENT_EXTRA]: llm },
        },
        store,
        limits: runOptions.limits,
        signal: runOptions.signal,
      });
      const records = store.records(runId);
      const record = records.find((candidate) => candidate.nodeId === node.id);
      if (!record) throw new Error(`node ${node.id} left no execution record (run ${outcome.status}: ${outcome.error?.message})`);
      return { outcome, record, records };
    },
    close: () => server.close(),
  };
}
