import { describe, expect, it } from '@jest/globals';
import type { ToolSnapshot } from '#mcp';
import type { ToolsetConnection, ToolsetRecord } from '../persistence/toolset-records.js';
import type { ToolsetRepository } from '../persistence/toolset.repository.js';
import { ToolsetSnapshots } from './toolset-snapshots.js';

/** A toolset store double counting its two reads: the connection alone, and the whole toolset. */
function fakeToolsets() {
  const state = { revision: 1, url: 'http://127.0.0.1:1/mcp', exists: true, connectionReads: 0, wholeReads: 0 };
  const connection = (): ToolsetConnection => ({
    url: state.url,
    headers: {},
    transport: 'auto',
    resolvedTransport: 'streamable-http',
    revision: state.revision,
  });
  const tool = { name: `tool-r${state.revision}` } as ToolSnapshot;
  const repository = {
    connectionOf: async () => (state.connectionReads++, state.exists ? connection() : undefined),
    findWithConnection: async () => {
      state.wholeReads++;
      if (!state.exists) return undefined;
      return { toolset: { tools: [{ ...tool, name: `tool-r${state.revision}` }] } as unknown as ToolsetRecord, connection: connection() };
    },
  };
  return { state, snapshots: new ToolsetSnapshots(repository as unknown as ToolsetRepository) };
}

describe('ToolsetSnapshots', () => {
  it('reads a toolset whole once, then only its connection while its revision stands', async () => {
    const { state, snapshots } = fakeToolsets();
    expect((await snapshots.load('t'))?.tools.map((tool) => [tool.toolsetId, tool.name])).toEqual([['t', 'tool-r1']]);
    state.url = 'http://127.0.0.1:2/mcp';
    const again = await snapshots.load('t');
    expect(again?.connection).toMatchObject({ url: 'http://127.0.0.1:2/mcp' });
    expect(again?.tools.map((tool) => tool.name)).toEqual(['tool-r1']);
    expect(state).toMatchObject({ wholeReads: 1, connectionReads: 1 });
  });

  it('reads it whole again once its revision moved, and answers undefined once it is gone', async () => {
    const { state, snapshots } = fakeToolsets();
    await snapshots.load('t');
    state.revision = 2;
    expect((await snapshots.load('t'))?.tools.map((tool) => tool.name)).toEqual(['tool-r2']);
    expect(state).toMatchObject({ wholeReads: 2, connectionReads: 1 });
    state.exists = false;
    expect(await snapshots.load('t')).toBeUndefined();
  });
});
