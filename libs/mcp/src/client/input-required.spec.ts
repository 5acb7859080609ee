import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connectMcp } from '../connect.js';
import { McpErrorCode, type McpError } from '../errors.js';
import { startFixtureServer, type FixtureServer } from '../testing/fixture-server.js';
import { basicTools, greetTool } from '../testing/fixture-tools.js';
import { startStatelessFixtureServer, type StatelessFixtureServer } from '../testing/stateless-fixture-server.js';
import type { ElicitationAnswer, ElicitationDeferral } from '../types.js';

const defer = async (): Promise<ElicitationDeferral> => ({ defer: true });
const QUESTION = { message: 'Who should be greeted?', requestedSchema: expect.objectContaining({ required: ['name'] }) };

/** A deferred answer ends the call with MCP_INPUT_REQUIRED and what a later call needs to go on. */
describe('deferring a request for input', () => {
  let session: FixtureServer;
  let stateless: StatelessFixtureServer;

  beforeAll(async () => {
    session = await startFixtureServer({ tools: [...basicTools(), greetTool] });
    stateless = await startStatelessFixtureServer({ tools: [...basicTools(), greetTool] });
  });
  afterAll(() => Promise.all([session.close(), stateless.close()]));

  it('2026-07-28: the error carries the round (key, requestState); a later call on a new connection resumes with inputResponses', async () => {
    const first = await connectMcp({ url: stateless.url }, { onElicitation: defer });
    const deferred = (await first.callTool('greet', {}).catch((error: unknown) => error)) as McpError;
    await first.close();
    expect(deferred.code).toBe(McpErrorCode.INPUT_REQUIRED);
    expect(deferred.pendingInput).toEqual({ request: QUESTION, resume: { key: 'form', answered: {} } });

    const callsBefore = stateless.calls('greet');
    const later = await connectMcp({ url: stateless.url }, { onElicitation: defer });
    const answer: ElicitationAnswer = { action: 'accept', content: { name: 'Bo', times: 1 } };
    const resume = deferred.pendingInput?.resume;
    const result = await later.callTool('greet', {}, { inputResponses: { responses: { [resume?.key ?? '']: answer } } });
    await later.close();
    expect(result.text).toBe('Hello Bo');
    // The retry alone: the server was not asked again first.
    expect(stateless.calls('greet') - callsBefore).toBe(1);
  });

  it('2025-11-25: the call is abandoned (the server hears it canceled) and the error carries the question only', async () => {
    const cancellationsBefore = session.cancellations();
    const connection = await connectMcp({ url: session.url }, { onElicitation: defer });
    const deferred = (await connection.callTool('greet', {}, { timeoutMs: 10_000 }).catch((error: unknown) => error)) as McpError;
    expect(deferred.code).toBe(McpErrorCode.INPUT_REQUIRED);
    expect(deferred.pendingInput).toEqual({ request: QUESTION });
    // The connection stays usable, and the same call answered now goes through.
    const answered = await connection.callTool('greet', {}, { onElicitation: async () => ({ action: 'accept', content: { name: 'Cy' } }) });
    expect(answered.text).toBe('Hello Cy');
    await connection.close();
    expect(session.cancellations() - cancellationsBefore).toBe(1);
  });
});
