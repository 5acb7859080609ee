import { describe, expect, it } from '@jest/globals';
import { spansOfOtlpJson, whereTimeGoes, type SpanRecord } from './span-summary.js';

const ns = (ms: number) => String(BigInt(Math.round(ms * 1000)) * 1000n + 1_700_000_000_000_000_000n);

describe('spansOfOtlpJson', () => {
  it('reads spans with their service, hex ids and nanosecond times (OTLP/HTTP JSON)', () => {
    const body = {
      resourceSpans: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'mcpflow-worker' } }] },
          scopeSpans: [
            {
              spans: [
                {
                  traceId: 'ab'.repeat(16),
                  spanId: 'cd'.repeat(8),
                  parentSpanId: 'ef'.repeat(8),
                  name: 'run',
                  startTimeUnixNano: ns(1),
                  endTimeUnixNano: ns(3.5),
                },
                {
                  traceId: 'ab'.repeat(16),
                  spanId: '01'.repeat(8),
                  parentSpanId: '',
                  name: 'node echo',
                  startTimeUnixNano: ns(2),
                  endTimeUnixNano: ns(3),
                },
              ],
            },
          ],
        },
      ],
    };
    const [run, node] = spansOfOtlpJson(body);
    expect(run).toMatchObject({ traceId: 'ab'.repeat(16), parentSpanId: 'ef'.repeat(8), name: 'run', service: 'mcpflow-worker' });
    expect(run.endMs - run.startMs).toBeCloseTo(2.5, 3);
    expect(node.parentSpanId).toBeUndefined();
  });
});

describe('whereTimeGoes', () => {
  const span = (traceId: string, service: string, name: string, startMs: number, endMs: number): SpanRecord => ({
    traceId,
    spanId: `${name}${startMs}`,
    name,
    service: `mcpflow-${service}`,
    startMs,
    endMs,
  });
  const oneRun = (traceId: string, shift: number, hop: number) => [
    span(traceId, 'api', 'POST /workflows/:id/runs', shift, shift + 20 + hop),
    span(traceId, 'api', 'store.find workflows', shift + 1, shift + 2),
    span(traceId, 'api', 'store.insert runs', shift + 3, shift + 4),
    span(traceId, 'worker', 'run', shift + 4 + hop, shift + 18 + hop),
    span(traceId, 'worker', 'store.findAndModify runs', shift + 5 + hop, shift + 6 + hop),
    span(traceId, 'worker', 'node echo', shift + 6 + hop, shift + 12 + hop),
    span(traceId, 'worker', 'store.findAndModify runs', shift + 15 + hop, shift + 17 + hop),
  ];

  it('gives per span name the median time per run, in the order things happen, and the gaps no span covers', () => {
    const spans = [...oneRun('t1', 0, 1), ...oneRun('t2', 100, 3), ...oneRun('t3', 200, 2), ...oneRun('other', 300, 50)];
    const { runs, rows, storeCommands } = whereTimeGoes(spans, ['t1', 't2', 't3', 'missing']);
    expect(runs).toBe(3);
    const row = (what: string) => rows.find((entry) => entry.what === what);
    expect(row('api: POST /workflows/:id/runs')).toEqual({ what: 'api: POST /workflows/:id/runs', perRun: 1, medianMs: 22, startsAtMs: 0 });
    // The claim and the terminal write: the same name twice in a run, ranked.
    expect(row('worker: store.findAndModify runs #1')).toMatchObject({ perRun: 1, medianMs: 1 });
    expect(row('worker: store.findAndModify runs #2')).toMatchObject({ perRun: 1, medianMs: 2 });
    expect(row('(gap) queue hop: last API store command → run span')).toMatchObject({ medianMs: 2, startsAtMs: 4 });
    expect(row('(gap) answer: terminal write on runs → response')).toMatchObject({ medianMs: 3 });
    expect(storeCommands).toEqual({ 'api: store.find workflows': 1, 'api: store.insert runs': 1, 'worker: store.findAndModify runs': 2 });
    expect(rows.map((entry) => entry.startsAtMs)).toEqual([...rows.map((entry) => entry.startsAtMs)].sort((a, b) => a - b));
  });
});
