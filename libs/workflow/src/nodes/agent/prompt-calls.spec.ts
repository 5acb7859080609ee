import { describe, expect, it } from '@jest/globals';
import { parsePromptToolCalls } from './prompt-calls.js';

const block = (body: string, lang = 'json') => '```' + lang + '\n' + body + '\n```';

describe('parsePromptToolCalls', () => {
  it('reads every use_mcp_tool block, in order', () => {
    const text = [
      'I will add, then echo.',
      block('{"type":"use_mcp_tool","server_name":"s1","tool_name":"get-sum","arguments":{"a":1,"b":2}}'),
      block('{"type":"use_mcp_tool","server_name":"s1","tool_name":"echo","arguments":{"message":"hi"}}', ''),
    ].join('\n');
    expect(parsePromptToolCalls(text)).toEqual([
      { serverName: 's1', toolName: 'get-sum', arguments: { a: 1, b: 2 } },
      { serverName: 's1', toolName: 'echo', arguments: { message: 'hi' } },
    ]);
  });

  it('ignores text without blocks and fenced blocks that are not calls', () => {
    expect(parsePromptToolCalls('The answer is 3.')).toEqual([]);
    expect(parsePromptToolCalls(null)).toEqual([]);
    expect(parsePromptToolCalls(block('{"result": 3}') + '\n' + block('const x = 1;', 'js'))).toEqual([]);
  });

  it('reports a use_mcp_tool block that is not valid JSON, so the model can rewrite it', () => {
    const [call] = parsePromptToolCalls(block('{"type":"use_mcp_tool","tool_name":"echo",}'));
    expect(call.error).toMatch(/use_mcp_tool block is not valid JSON/);
  });

  it('leaves a missing server or tool name unset (the resolver reports it)', () => {
    expect(parsePromptToolCalls(block('{"type":"use_mcp_tool","tool_name":"echo"}'))).toEqual([
      { serverName: undefined, toolName: 'echo', arguments: undefined },
    ]);
  });
});
