import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connectMcp } from '../connect.js';
import { McpErrorCode } from '../errors.js';
import { defaultsOf } from '../schema/defaults.js';
import { startFixtureServer, type FixtureServer } from '../testing/fixture-server.js';
import { basicTools, greetTool } from '../testing/fixture-tools.js';
import { startStatelessFixtureServer, type StatelessFixtureServer } from '../testing/stateless-fixture-server.js';
import type { ElicitationAnswer, ElicitationRequest } from '../types.js';

describe('a tool that asks for input mid-call', () => {
  let session: FixtureServer;
  let stateless: StatelessFixtureServer;

  beforeAll(async () => {
    session = await startFixtureServer({ tools: [...basicTools(), greetTool] });
    stateless = await startStatelessFixtureServer({ tools: [...basicTools(), greetTool] });
  });
  afterAll(() => Promise.all([session.close(), stateless.close()]));

  const answering = (answer: (request: ElicitationRequest) => ElicitationAnswer) => {
    const seen: ElicitationRequest[] = [];
    return { seen, onElicitation: (request: ElicitationRequest) => Promise.resolve(answer((seen.push(request), request))) };
  };

  it.each([
    ['a 2025-11-25 session server (elicitation/create)', () => session.url],
    ['a 2026-07-28 stateless server (input_required, then a retry with inputResponses)', () => stateless.url],
  ])('%s: the answer given by onElicitation reaches the tool; decline is a decline', async (_kind, url) => {
    const accept = answering((request) => ({ action: 'accept', content: { ...defaultsOf(request.requestedSchema), times: 2 } }));
    const connection = await connectMcp({ url: url() }, { onElicitation: accept.onElicitation });
    expect((await connection.callTool('greet', {})).text).toBe('Hello AdaHello Ada');
    expect(accept.seen).toEqual([{ message: 'Who should be greeted?', requestedSchema: expect.objectContaining({ required: ['name'] }) }]);
    await connection.close();

    const decline = answering(() => ({ action: 'decline' }));
    const declining = await connectMcp({ url: url() }, { onElicitation: decline.onElicitation });
    expect((await declining.callTool('greet', {})).text).toBe('no greeting (decline)');
    await declining.close();
  });

  it.each([
    ['session', () => session.url],
    ['stateless', () => stateless.url],
  ])('calls sharing one %s connection answer their own elicitations (per-call onElicitation)', async (_kind, url) => {
    const connection = await connectMcp({ url: url() }, { onElicitation: async () => ({ action: 'decline' }) });
    const as = (name: string) => ({ onElicitation: async () => ({ action: 'accept' as const, content: { name } }) });
    const [first, second, fallback] = await Promise.all([
      connection.callTool('greet', {}, as('Ada')),
      connection.callTool('greet', {}, as('Grace')),
      connection.callTool('greet', {}),
    ]);
    expect([first.text, second.text, fallback.text]).toEqual(['Hello Ada', 'Hello Grace', 'no greeting (decline)']);
    await connection.close();
  });

  it('the stateless server holds nothing open between the two rounds: two tools/call requests, no session', async () => {
    const before = stateless.requests('tools/call');
    const connection = await connectMcp(
      { url: stateless.url },
      { onElicitation: async () => ({ action: 'accept', content: { name: 'Grace' } }) },
    );
    expect((await connection.callTool('greet', {})).text).toBe('Hello Grace');
    await connection.close();
    expect(stateless.requests('tools/call') - before).toBe(2);
    expect(stateless.sessionTraffic()).toEqual({ withSessionId: 0, deletes: 0 });
  });

  it.each([
    ['session', () => session.url],
    ['stateless', () => stateless.url],
  ])('without onElicitation the %s call fails with a code instead of hanging', async (_kind, url) => {
    const connection = await connectMcp({ url: url() });
    await expect(connection.callTool('greet', {}, { timeoutMs: 5_000 })).rejects.toMatchObject({ code: McpErrorCode.PROTOCOL_ERROR });
    await connection.close();
  });

  it('defaultsOf reads the defaults of the top-level properties', () => {
    expect(
      defaultsOf({
        type: 'object',
        properties: { a: { type: 'string', default: 'x' }, b: { type: 'integer' }, c: { enum: ['p', 'q'], default: 'q' } },
      }),
    ).toEqual({
      a: 'x',
      c: 'q',
    });
  });
});
