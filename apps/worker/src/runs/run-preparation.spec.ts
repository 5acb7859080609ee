import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { newStoredId } from '#workflow/nest';
import type { McpHttpTarget } from '#mcp';
import { startFixtureServer, waitUntil, type FixtureServer } from '#mcp/testing';
import { createDefaultNodeRegistry, DEFAULT_ENGINE_LIMITS, type WorkflowDefinition } from '#workflow';
import {
  createSecretBox,
  type AppConfig,
  type HttpConnectionSpec,
  type RunRecord,
  type RunMcpSession,
  type RunSessionRepository,
  type ToolsetSnapshot,
  type ToolsetSnapshots,
  type ToolsetOAuth,
  type ToolsetTargets,
  type WorkflowRepository,
} from '#workflow/nest';
import { RunPreparer } from './run-preparation.js';
import { RunSessions } from './run-sessions.js';

const echo = {
  name: 'echo',
  usable: true,
  inputSchema: { type: 'object', properties: { message: { type: 'string' } } },
  inputs: [],
  outputs: [],
  annotations: {},
};

function workflow(edges: WorkflowDefinition['edges'], toolsets: Record<string, string>): WorkflowDefinition {
  const tools = Object.entries(toolsets).map(([id, toolsetId]) => ({
    id,
    type: 'mcpTool',
    config: { toolsetId, tool: 'echo' },
    inputs: {},
  }));
  return {
    name: 'w',
    nodes: [{ id: 'start', type: 'start', config: {}, inputs: {} }, ...tools, { id: 'if', type: 'condition', config: {}, inputs: {} }],
    edges,
  };
}

describe('RunPreparer', () => {
  let server: FixtureServer;
  const reads: string[] = [];
  const recorded: RunMcpSession[] = [];
  let preparer: RunPreparer;
  const definition = workflow([{ source: 'start', target: 'a' }], { a: 'ts-1' });
  const plan = { workflowId: newStoredId(), version: 3 };

  beforeAll(async () => {
    server = await startFixtureServer();
    const snapshot: ToolsetSnapshot = {
      connection: { url: server.url, headers: {}, transport: 'auto', resolvedTransport: 'streamable-http', revision: 1 },
      tools: [{ toolsetId: 'ts-1', ...echo }] as unknown as ToolsetSnapshot['tools'],
    };
    const snapshots = { load: async (id: string) => (reads.push(id), id === 'ts-1' ? snapshot : undefined) } as unknown as ToolsetSnapshots;
    const targets = {
      targetFor: (spec: HttpConnectionSpec): McpHttpTarget => ({ url: spec.url, transport: spec.transport }),
    } as unknown as ToolsetTargets;
    const runs = {
      record: async (_id: unknown, session: RunMcpSession) => void recorded.push(session),
    } as unknown as RunSessionRepository;
    const workflows = { findVersion: async () => ({ definition }) } as unknown as WorkflowRepository;
    const config = { limits: { callTimeoutMs: DEFAULT_ENGINE_LIMITS.callTimeoutMs } } as AppConfig;
    preparer = new RunPreparer(
      config,
      workflows,
      snapshots,
      targets,
      new RunSessions(runs, targets),
      createDefaultNodeRegistry(),
      createSecretBox({}),
      {} as ToolsetOAuth,
    );
  });
  afterAll(() => server.close());

  it('connects ahead to the toolsets the run surely calls, records the session once the run is held, and calls through it', async () => {
    reads.length = 0;
    recorded.length = 0;
    let hold: (run: RunRecord | undefined) => void = () => undefined;
    const taken = new Promise<RunRecord | undefined>((resolve) => (hold = resolve));
    const prepared = preparer.prepare(newStoredId(), plan, taken);
    await waitUntil(() => server.sessions() === 1, 2_000, 'a session opened ahead');
    expect(recorded).toEqual([]);
    hold({ id: newStoredId(), workflowId: plan.workflowId, version: 3 } as RunRecord);
    const result = await prepared.invoker.callTool({
      toolsetId: 'ts-1',
      tool: 'echo',
      arguments: { message: 'hi' },
      signal: new AbortController().signal,
    });
    expect(result).toMatchObject({ text: 'hi', sessionReused: false });
    expect(
      await prepared.invoker.callTool({
        toolsetId: 'ts-1',
        tool: 'echo',
        arguments: { message: 'again' },
        signal: new AbortController().signal,
      }),
    ).toMatchObject({ sessionReused: true });
    expect(recorded).toHaveLength(1);
    expect(reads).toEqual(['ts-1']);
    expect(server.sessions()).toBe(1);
    await prepared.close();
    expect(server.sessions()).toBe(0);
  });

  it('ends a session opened ahead without recording it when the run turns out not to be this worker’s', async () => {
    recorded.length = 0;
    let hold: (run: RunRecord | undefined) => void = () => undefined;
    const prepared = preparer.prepare(newStoredId(), plan, new Promise((resolve) => (hold = resolve)));
    await waitUntil(() => server.sessions() === 1, 2_000, 'a session opened ahead');
    hold(undefined);
    await waitUntil(() => server.sessions() === 0, 2_000, 'the refused session ended');
    await prepared.close();
    expect(recorded).toEqual([]);
    expect(server.sessions()).toBe(0);
  });

  it('tells whether a claimed run is the one the job announced', () => {
    const prepared = preparer.prepare(newStoredId(), plan, Promise.resolve(undefined));
    const run = (version: number) => ({ workflowId: plan.workflowId, version }) as RunRecord;
    expect(prepared.matches(run(3))).toBe(true);
    expect(prepared.matches(run(4))).toBe(false);
    return prepared.close();
  });
});
