import { describe, expect, it } from '@jest/globals';
import { McpError, OutboundBlockedError } from '#mcp';
import { ApiError, InvalidRequestError } from '../common/api-errors.js';
import { scrubSecrets } from '#workflow/nest';
import { argumentPointer, connectionFailure } from './toolset-errors.js';

describe('argumentPointer', () => {
  it('turns libs/mcp argument paths into JSON pointers under /arguments', () => {
    expect(argumentPointer('')).toBe('/arguments');
    expect(argumentPointer('message')).toBe('/arguments/message');
    expect(argumentPointer('items[0].name')).toBe('/arguments/items/0/name');
    expect(argumentPointer('["a/b"]["x~y"].z')).toBe('/arguments/a~1b/x~0y/z');
  });
});

describe('connectionFailure', () => {
  it('keeps the code and lists every cause of an auto fallback with its attempt', () => {
    const stateless = new McpError('MCP_PROTOCOL_ERROR', 'server/discover was refused (HTTP 404)');
    const streamable = new McpError('MCP_PROTOCOL_ERROR', 'HTTP 404');
    const sse = new McpError('MCP_UNREACHABLE', 'stream never opened');
    const attempts = [
      { transport: 'streamable-http', protocolVersion: '2026-07-28' },
      { transport: 'streamable-http' },
      { transport: 'sse' },
    ] as const;
    const error = connectionFailure(
      new McpError('MCP_UNREACHABLE', 'no MCP revision answered', { causes: [stateless, streamable, sse], attempts: [...attempts] }),
      [],
    );
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({
      code: 'MCP_UNREACHABLE',
      errors: [
        { path: '/url', code: 'MCP_PROTOCOL_ERROR', transport: 'streamable-http', protocolVersion: '2026-07-28' },
        { path: '/url', code: 'MCP_PROTOCOL_ERROR', message: 'HTTP 404', transport: 'streamable-http' },
        { path: '/url', code: 'MCP_UNREACHABLE', message: 'stream never opened', transport: 'sse' },
      ],
    });
  });

  it('reports an outbound refusal found anywhere behind the error', () => {
    const error = connectionFailure(
      new McpError('MCP_UNREACHABLE', 'connect failed', {
        cause: new Error('fetch failed', { cause: new OutboundBlockedError('x is denied') }),
      }),
      [],
    );
    expect(error).toMatchObject({ code: 'OUTBOUND_BLOCKED', errors: [{ path: '/url', code: 'OUTBOUND_BLOCKED' }] });
  });

  it('turns invalid arguments into a 400 with pointers', () => {
    const error = connectionFailure(new McpError('MCP_INPUT_INVALID', 'bad', { errors: [{ path: 'a.b', message: 'must be string' }] }), []);
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error).toMatchObject({ code: 'MCP_INPUT_INVALID', errors: [{ path: '/arguments/a/b', message: 'must be string' }] });
  });

  it('removes header values a server echoed into its error', () => {
    const error = connectionFailure(new McpError('MCP_AUTH_FAILED', 'refused token Bearer s3cr3t-value'), ['Bearer s3cr3t-value', 'abc']);
    expect(error.message).toBe('refused token ***');
    expect(scrubSecrets('token s3cr3t-value is unknown', ['Bearer s3cr3t-value'])).toBe('token *** is unknown');
    expect(scrubSecrets('a abc b', ['abc'])).toBe('a abc b'); // too short to be told apart from ordinary text
  });

  it('passes other errors through', () => {
    const plain = new Error('boom');
    expect(connectionFailure(plain, [])).toBe(plain);
  });
});
