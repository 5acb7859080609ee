import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplicationContext } from '@nestjs/common';
import { getConnectionToken } from '@nestjs/mongoose';
import { Types, type Connection } from 'mongoose';
import { basicTools, startFixtureServer, waitUntil, type FixtureServer } from '#mcp/testing';
import type { AppConfig } from '#workflow/nest';
import { allLogs, createWorkflow, FAST_RECOVERY, registerToolset, startRun } from '../support/runs.js';
import { dropTestData, startApi, startWorker, testConfig } from '../support/stack.js';

/** One command the API or the worker sent to the store, as the driver's command monitoring saw it. */
interface SentCommand {
  app: 'api' | 'worker';
  name: string;
  collection: string;
  documents?: number;
}

/** Commands that are the driver's own (handshakes, monitoring, sessions), not the product's. */
const DRIVER_COMMANDS = new Set(['hello', 'ismaster', 'isMaster', 'ping', 'endSessions', 'buildInfo', 'getMore', 'killCursors']);

function monitor(app: INestApplicationContext, name: SentCommand['app'], sink: SentCommand[]): void {
  const connection = app.get<Connection>(getConnectionToken(), { strict: false });
  connection.getClient().on('commandStarted', (event) => {
    if (DRIVER_COMMANDS.has(event.commandName)) return;
    const command = event.command as Record<string, unknown>;
    const documents = Array.isArray(command.documents) ? command.documents.length : undefined;
    sink.push({ app: name, name: event.commandName, collection: String(command[event.commandName]), ...(documents && { documents }) });
  });
}

/**
 * The critical path of a `start → mcpTool → end` run, counted in store commands (SPEC §3
 * durability with issue 14's target): accept (insert), claim, the tool node's record (carrying
 * the start node's), finish (carrying the end node's). Counted, never timed.
 */
describe('store round trips of one run', () => {
  let config: AppConfig;
  let fixture: FixtureServer;
  let apiUrl: string;
  const apps: INestApplicationContext[] = [];
  const sent: SentCommand[] = [];
  let ferretdbV1 = false;
  const worker = () => apps[0];

  beforeAll(async () => {
    // The recovery sweep's periodic reads are not the run's: kept out of the count.
    const base = testConfig({ ...FAST_RECOVERY, RUN_SWEEP_INTERVAL_MS: '3600000' });
    const url = new URL(base.mongoUrl);
    url.searchParams.set('monitorCommands', 'true');
    config = { ...base, mongoUrl: url.toString() };
    const api = await startApi(config);
    apiUrl = api.url;
    const worker = await startWorker(config);
    apps.push(worker, api.app);
    monitor(api.app, 'api', sent);
    monitor(worker, 'worker', sent);
    const info = (await worker.get<Connection>(getConnectionToken(), { strict: false }).db?.admin().command({ buildInfo: 1 })) as
      { ferretdbVersion?: string } | undefined;
    ferretdbV1 = /^v?1\./.test(info?.ferretdbVersion ?? '');
    fixture = await startFixtureServer({ tools: basicTools() });
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    await fixture.close();
    await dropTestData(config);
  });

  it('start → mcpTool → end: accept, claim, the journal’s inserts, finish with the end node', async () => {
    const ts = await registerToolset(apiUrl, fixture.url);
    const nodes = [
      { id: 'start', type: 'start' },
      { id: 'sum', type: 'mcpTool', config: { toolsetId: ts, tool: 'add' }, inputs: { a: { value: 1 }, b: { value: 2 } } },
      { id: 'end', type: 'end', inputs: { sum: { ref: 'sum.result.sum' } } },
    ];
    const workflowId = await createWorkflow(apiUrl, {
      name: 'three nodes',
      nodes,
      edges: [
        { source: 'start', target: 'sum' },
        { source: 'sum', target: 'end' },
      ],
    });
    // A first run warms what a worker caches (the workflow version); the second is the one counted.
    expect((await startRun(apiUrl, workflowId, {}, '?wait=20000')).status).toBe(200);
    await waitUntil(() => fixture.sessions() === 0, 5000, 'the first run to close its session');
    sent.length = 0;
    const run = await startRun(apiUrl, workflowId, {}, '?wait=20000');
    expect(run.status).toBe(200);
    expect(run.body).toMatchObject({ status: 'succeeded', outputs: { sum: 3 } });
    await waitUntil(() => fixture.sessions() === 0, 5000, 'the run to close its session');
    const commands = sent.splice(0);
    const show = JSON.stringify(commands);
    const onRun = commands
      .filter((command) => command.collection === 'runs' || command.collection === 'node_executions')
      .map(({ app, name, collection, documents }) => ({ app, name, collection, documents }));
    // FerretDB v1 cannot guard a write atomically: the finish reads the run by `_id` first, while the
    // run's MCP pool closes (guarded-update.ts), so that read is not on the critical path.
    const finishRead = ferretdbV1 ? [{ app: 'worker', name: 'find', collection: 'runs', documents: undefined }] : [];
    expect({ onRun, show }).toEqual({
      onRun: [
        { app: 'api', name: 'insert', collection: 'runs', documents: 1 },
        { app: 'worker', name: 'findAndModify', collection: 'runs', documents: undefined },
        // The fenced journal (run-journal.ts): the claim; the tool call's marker, carrying the start node's record;
        // the tool node's record; the terminal write's record, before the run's.
        { app: 'worker', name: 'insert', collection: 'node_executions', documents: 1 },
        { app: 'worker', name: 'insert', collection: 'node_executions', documents: 2 },
        { app: 'worker', name: 'insert', collection: 'node_executions', documents: 1 },
        { app: 'worker', name: 'insert', collection: 'node_executions', documents: 1 },
        ...finishRead,
        { app: 'worker', name: 'findAndModify', collection: 'runs', documents: undefined },
      ],
      show,
    });
    // The run's MCP session is recorded once and, the run ended, not deleted (retention removes it with the run).
    const sessionRecords = await worker()
      .get<Connection>(getConnectionToken(), { strict: false })
      .collection('run_mcp_sessions')
      .countDocuments({ runId: new Types.ObjectId(run.body.id) });
    expect({ sessionRecords, sessionCommands: commands.filter((c) => c.collection === 'run_mcp_sessions').map((c) => c.name) }).toEqual({
      sessionRecords: 1,
      sessionCommands: ['insert'],
    });
    // Records are keyed <runId>:<slot> (a lookup by `_id` alone, which FerretDB v1 hands to SQL): slot 1 is the
    // claim, 2 the start node's record, 3 the call's marker, 4 the tool node's record, 5 the end.
    const records = await worker()
      .get<Connection>(getConnectionToken(), { strict: false })
      .collection('node_executions')
      .find({ runId: new Types.ObjectId(run.body.id), seq: { $gt: 0 } }, { projection: { _id: 1 } })
      .toArray();
    expect(records.map((record) => String(record._id)).sort()).toEqual([`${run.body.id}:2`, `${run.body.id}:4`]);
    // The log still shows all three nodes: end's record came with the terminal write.
    const logs = await allLogs(apiUrl, run.body.id);
    expect(logs.map((item) => `${item.seq}:${item.nodeId}:${item.status}`)).toEqual([
      '1:start:succeeded',
      '2:sum:succeeded',
      '3:end:succeeded',
    ]);
  });
});
