import { describe, expect, it } from '@jest/globals';
import type { ToolSnapshot } from '#mcp';
import { diffTools } from './tool-diff.js';

const tool = (name: string, extra: Partial<ToolSnapshot> = {}): ToolSnapshot => ({
  name,
  inputSchema: { type: 'object', properties: {} },
  inputs: [],
  usable: true,
  ...extra,
});

describe('diffTools', () => {
  it('names added, removed and changed tools, sorted', () => {
    const before = [tool('b'), tool('a', { description: 'old' }), tool('gone')];
    const after = [tool('a', { description: 'new' }), tool('b'), tool('z'), tool('new')];
    expect(diffTools(before, after)).toEqual({ added: ['new', 'z'], removed: ['gone'], changed: ['a'] });
  });

  it('does not report a tool whose schema only changed key order', () => {
    const before = [tool('t', { inputSchema: { type: 'object', properties: { x: { type: 'string', description: 'd' } } } })];
    const after = [tool('t', { inputSchema: { properties: { x: { description: 'd', type: 'string' } }, type: 'object' } })];
    expect(diffTools(before, after)).toEqual({ added: [], removed: [], changed: [] });
  });

  it('reports changed usability, annotations and output schema', () => {
    const before = [tool('u'), tool('a'), tool('o')];
    const after = [
      tool('u', { usable: false, unusableReason: 'r' }),
      tool('a', { annotations: { readOnlyHint: true } }),
      tool('o', { outputSchema: { type: 'object' } }),
    ];
    expect(diffTools(before, after).changed).toEqual(['a', 'o', 'u']);
  });
});
