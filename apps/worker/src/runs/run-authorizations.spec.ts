import { describe, expect, it } from '@jest/globals';
import { ENGINE_ERROR_CODES, type PauseRequest, type PauseState, type RunPauses, type WorkflowDefinition } from '#workflow';
import type { HttpToolsetConnection, RunRecord, ToolsetConnection } from '#workflow/nest';
import { RunAuthorizations } from './run-authorizations.js';

const perUser: HttpToolsetConnection = {
  id: 'ts-1',
  url: 'https://mcp.example.com/mcp',
  headers: {},
  auth: { type: 'oauth', flow: 'authorization_code', perUser: true },
  transport: 'auto',
  resolvedTransport: 'streamable-http',
  revision: 1,
};
const workflow = {
  inputSchema: { type: 'object', properties: { user: { type: 'string', 'x-mcpflow-subject': true } } },
} as unknown as WorkflowDefinition;
const run = { id: 'run-1', inputs: { user: 'alice' }, triggeredBy: 'key-1' } as unknown as RunRecord;
const NOW = 1_000_000;

function setUp(state?: PauseState, connection: ToolsetConnection = perUser) {
  const requested: Array<[string, PauseRequest]> = [];
  const begun: unknown[][] = [];
  const pauses: RunPauses = { stateOf: async () => state, request: (nodeId, request) => void requested.push([nodeId, request]) };
  const oauth = {
    begin: async (...args: unknown[]) => {
      begun.push(args);
      return { authorizationUrl: 'https://as.example.com/authorize?state=s', expiresAt: new Date(NOW + 600_000) };
    },
  };
  const authorizations = new RunAuthorizations(
    'run-1',
    Promise.resolve(run),
    Promise.resolve(workflow),
    async () => connection,
    oauth,
    pauses,
    () => NOW,
  );
  return { authorizations, requested, begun };
}

describe('RunAuthorizations', () => {
  it("starts the subject's authorization bound to the run and node, and makes the node wait until the URL expires", async () => {
    const { authorizations, requested, begun } = setUp();
    const waiting = await authorizations.waitFor('ts-1', 'echo', 'call');
    expect(waiting?.code).toBe(ENGINE_ERROR_CODES.inputRequired);
    expect(begun).toEqual([
      ['ts-1', perUser.url, perUser.auth, 'key-1', { subject: 'input:alice', run: { runId: 'run-1', nodeId: 'call' } }],
    ]);
    expect(requested).toEqual([
      [
        'call',
        expect.objectContaining({
          resumeAt: NOW + 600_000,
          authorization: {
            toolsetId: 'ts-1',
            subject: 'input:alice',
            url: 'https://as.example.com/authorize?state=s',
            expiresAt: new Date(NOW + 600_000).toISOString(),
          },
        }),
      ],
    ]);
  });

  it('fails the node once the URL expired unused, or when the wait was declined', async () => {
    for (const state of [{ resumeAt: NOW }, { answer: { action: 'decline' as const } }]) {
      const { authorizations, begun } = setUp(state);
      expect((await authorizations.waitFor('ts-1', 'echo', 'call'))?.code).toBe('MCP_AUTH_REQUIRED');
      expect(begun).toEqual([]);
    }
  });

  it('leaves toolsets that are not per-user alone: their failure stands', async () => {
    const shared = { ...perUser, auth: { type: 'oauth' as const, flow: 'authorization_code' as const } };
    const { authorizations, begun } = setUp(undefined, shared);
    expect(await authorizations.waitFor('ts-1', 'echo', 'call')).toBeUndefined();
    expect(begun).toEqual([]);
  });
});
