#!/usr/bin/env node
// The chaos harness's HTTP side (Node ≥ 20, no dependencies). API_URL and API_KEY come from the
// environment (never from arguments: they would show in `ps`).
//
//   node client.mjs setup  --mcp-url <url> --out <setup.json> [--retry 3:1000|none] [--slow-ms 250]
//   node client.mjs load   --setup <setup.json> --rate <per s> --stop-file <path> --out <triggers.jsonl>
//                          [--max-seconds 3600] [--retry-seconds 180] [--max-in-flight 1000]
//   node client.mjs report --dir <work dir> --out <result.json> [--settle-seconds 300]
//
// Every loop is bounded in count and time; only 127.0.0.1 is ever contacted (API_URL must be loopback).
import fs from 'node:fs';
import path from 'node:path';

const API_URL = (process.env.API_URL ?? '').replace(/\/$/, '');
const API_KEY = process.env.API_KEY ?? '';

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  if (i > 0 && i + 1 < process.argv.length) return process.argv[i + 1];
  if (fallback === undefined) die(`--${name} is required`);
  return fallback;
}
function die(message) {
  console.error(`client: ${message}`);
  process.exit(2);
}
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const nowIso = () => new Date().toISOString();

function checkApi() {
  if (!API_URL || !API_KEY) die('API_URL and API_KEY must be set');
  const host = new URL(API_URL).hostname;
  if (host !== '127.0.0.1' && host !== 'localhost') die(`API_URL must be loopback, got ${host}`);
}

/** One HTTP call; never throws: {status, headers, body} or {status: 0, error}. */
async function api(method, urlPath, body, { headers = {}, timeoutMs = 15000 } = {}) {
  try {
    const res = await fetch(API_URL + urlPath, {
      method,
      headers: {
        authorization: `Bearer ${API_KEY}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await res.text();
    let parsed = text;
    try {
      parsed = text === '' ? null : JSON.parse(text);
    } catch {
      /* not JSON */
    }
    return { status: res.status, headers: res.headers, body: parsed };
  } catch (error) {
    return { status: 0, error: errorClass(error) };
  }
}

function errorClass(error) {
  if (error?.name === 'TimeoutError' || error?.name === 'AbortError') return 'timeout';
  const cause = error?.cause;
  return cause?.code ?? cause?.name ?? error?.code ?? error?.name ?? 'error';
}

async function mapLimit(items, limit, fn) {
  const results = new Array(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i], i);
    }
  });
  await Promise.all(workers);
  return results;
}

function readJsonl(file) {
  if (!fs.existsSync(file)) return { rows: [], malformed: 0 };
  const rows = [];
  let malformed = 0;
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    try {
      rows.push(JSON.parse(line));
    } catch {
      malformed += 1;
    }
  }
  return { rows, malformed };
}

// ---------------------------------------------------------------- setup
async function setup() {
  checkApi();
  const mcpUrl = arg('mcp-url');
  const out = arg('out');
  const retrySpec = arg('retry', '3:1000');
  const slowMs = Number(arg('slow-ms', '250'));
  let retry;
  if (retrySpec !== 'none') {
    const [maxAttempts, backoffMs] = retrySpec.split(':').map(Number);
    if (!Number.isInteger(maxAttempts) || maxAttempts < 1 || !Number.isInteger(backoffMs) || backoffMs < 0) die(`bad --retry ${retrySpec}`);
    retry = { maxAttempts, backoffMs };
  }
  const stamp = Date.now().toString(36);
  let toolset;
  for (let i = 0; i < 20 && !toolset; i++) {
    const res = await api('POST', '/toolsets', { name: `chaos-fixture-${stamp}`, url: mcpUrl, transport: 'streamable-http' });
    if (res.status === 201) toolset = res.body;
    else {
      console.error(`setup: POST /toolsets → ${res.status || res.error} ${JSON.stringify(res.body ?? '').slice(0, 300)}`);
      await sleep(1000);
    }
  }
  if (!toolset) die('could not register the fixture as a toolset');
  const tool = (id, name, inputs) => ({
    id,
    type: 'mcpTool',
    config: { toolsetId: toolset.id, tool: name },
    inputs,
    ...(retry && { retry }),
  });
  const definition = {
    name: `chaos-${stamp}`,
    description: 'chaos harness: start → effect(<id>:a) → slow → effect(<id>:b) → end',
    inputSchema: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } },
    nodes: [
      { id: 'start', type: 'start' },
      tool('ea', 'effect', { key: { template: '{{start.id}}:a' } }),
      tool('pause', 'slow', { ms: { value: slowMs } }),
      tool('eb', 'effect', { key: { template: '{{start.id}}:b' } }),
      { id: 'end', type: 'end', inputs: { a: { ref: 'ea.text' }, b: { ref: 'eb.text' } } },
    ],
    edges: [
      { source: 'start', target: 'ea' },
      { source: 'ea', target: 'pause' },
      { source: 'pause', target: 'eb' },
      { source: 'eb', target: 'end' },
    ],
  };
  const res = await api('POST', '/workflows', definition);
  if (res.status !== 201) die(`POST /workflows → ${res.status || res.error} ${JSON.stringify(res.body).slice(0, 1000)}`);
  const result = {
    toolsetId: toolset.id,
    workflowId: res.body.id,
    mcpUrl,
    retry: retry ?? null,
    slowMs,
    effectNodes: { ea: 'a', eb: 'b' },
  };
  fs.writeFileSync(out, JSON.stringify(result, null, 2));
  console.log(result.workflowId);
}

// ---------------------------------------------------------------- load
async function load() {
  checkApi();
  const { workflowId } = JSON.parse(fs.readFileSync(arg('setup'), 'utf8'));
  const rate = Number(arg('rate'));
  const stopFile = arg('stop-file');
  const out = arg('out');
  const maxSeconds = Number(arg('max-seconds', '3600'));
  const retrySeconds = Number(arg('retry-seconds', '180'));
  const maxInFlight = Number(arg('max-in-flight', '1000'));
  if (!(rate > 0 && rate <= 200)) die('--rate must be in (0, 200]');
  const prefix = `c${Date.now().toString(36)}`;
  const interval = 1000 / rate;
  const started = Date.now();
  const stats = { attempted: 0, accepted: 0, never: 0, throttled: 0, retried: 0, attemptErrors: {}, attemptErrorSamples: {} };
  let inFlight = 0;
  const pending = new Set();
  const write = (row) => fs.appendFileSync(out, JSON.stringify(row) + '\n');

  const trigger = async (id) => {
    const first = Date.now();
    const deadline = first + retrySeconds * 1000;
    const errors = {};
    let attempts = 0;
    let last;
    for (;;) {
      attempts += 1;
      const res = await api(
        'POST',
        `/workflows/${workflowId}/runs`,
        { inputs: { id } },
        { headers: { 'idempotency-key': id }, timeoutMs: 15000 },
      );
      if (res.status === 200 || res.status === 202) {
        write({
          type: 'accepted',
          id,
          runId: res.body?.id ?? null,
          httpStatus: res.status,
          replayed: res.headers.get('idempotent-replayed') === 'true',
          attempts,
          errors,
          firstAt: new Date(first).toISOString(),
          acceptedAt: nowIso(),
        });
        stats.accepted += 1;
        if (attempts > 1) stats.retried += 1;
        return;
      }
      const cls = res.status === 0 ? res.error : String(res.status);
      errors[cls] = (errors[cls] ?? 0) + 1;
      stats.attemptErrors[cls] = (stats.attemptErrors[cls] ?? 0) + 1;
      last = { status: res.status, error: res.error, body: typeof res.body === 'string' ? res.body.slice(0, 300) : res.body, at: nowIso() };
      const samples = (stats.attemptErrorSamples[cls] ??= []);
      if (samples.length < 3) samples.push({ id, ...last });
      const retryable = res.status === 0 || res.status >= 500 || res.status === 429 || res.status === 408;
      let wait = Math.min(2000, 200 * 1.5 ** Math.min(attempts, 10)) * (0.5 + Math.random() / 2);
      if (res.status === 429) wait = Math.min(10000, Number(res.headers.get('retry-after') ?? 1) * 1000);
      if (!retryable || Date.now() + wait > deadline) {
        write({ type: 'never', id, attempts, errors, last, retryable, firstAt: new Date(first).toISOString(), gaveUpAt: nowIso() });
        stats.never += 1;
        return;
      }
      await sleep(wait);
    }
  };

  // Watch the active runs' logs while the load lasts (every 5 s), so that a node record a later
  // execution overwrites is still on file for the report.
  const observedFile = path.join(path.dirname(out), 'observed.jsonl');
  const seen = new Set();
  let watching = true;
  const watcher = (async () => {
    for (let round = 0; watching && round < 100000; round++) {
      await watchActiveRuns(workflowId, observedFile, seen).catch(() => undefined);
      for (let i = 0; i < 50 && watching; i++) await sleep(100);
    }
  })();

  let seq = 0;
  for (let tick = 0; ; tick++) {
    const due = started + tick * interval;
    const delay = due - Date.now();
    if (delay > 0) await sleep(delay);
    if (fs.existsSync(stopFile) || Date.now() - started > maxSeconds * 1000) break;
    if (tick > rate * maxSeconds + 10) break; // bounded in count as well
    if (inFlight >= maxInFlight) {
      stats.throttled += 1;
      continue;
    }
    const id = `${prefix}-${String(++seq).padStart(6, '0')}`;
    stats.attempted += 1;
    inFlight += 1;
    const p = trigger(id).finally(() => {
      inFlight -= 1;
      pending.delete(p);
    });
    pending.add(p);
    if (tick % Math.max(1, Math.round(rate * 10)) === 0 && tick > 0) {
      console.error(
        `[load ${nowIso()}] attempted ${stats.attempted}, accepted ${stats.accepted}, never ${stats.never}, in flight ${inFlight}`,
      );
    }
  }
  console.error(`[load ${nowIso()}] stopped issuing; waiting for ${pending.size} pending triggers (each bounded by ${retrySeconds} s)`);
  await Promise.all([...pending]);
  watching = false;
  await watcher;
  const summary = { prefix, rate, seconds: (Date.now() - started) / 1000, ...stats };
  fs.writeFileSync(out.replace(/\.jsonl$/, '') + '.summary.json', JSON.stringify(summary, null, 2));
  console.error(`[load ${nowIso()}] done: ${JSON.stringify(summary)}`);
}

// ---------------------------------------------------------------- report
const TERMINAL = new Set(['succeeded', 'failed', 'canceled']);

async function fetchRun(runId) {
  for (let i = 0; i < 5; i++) {
    const res = await api('GET', `/runs/${runId}`);
    if (res.status === 200) return { found: true, run: res.body };
    if (res.status === 404) return { found: false };
    await sleep(500 * (i + 1));
  }
  return { found: null }; // could not tell (API errors)
}

async function fetchLogs(runId) {
  const items = [];
  let cursor;
  for (let page = 0; page < 50; page++) {
    let res;
    for (let i = 0; i < 5; i++) {
      res = await api('GET', `/runs/${runId}/logs?limit=500${cursor !== undefined ? `&cursor=${cursor}` : ''}`);
      if (res.status === 200 || res.status === 404) break;
      await sleep(500 * (i + 1));
    }
    if (res.status !== 200) return { items, error: res.status || res.error };
    items.push(...res.body.items);
    if (res.body.nextCursor === null || res.body.nextCursor === undefined) break;
    cursor = res.body.nextCursor;
  }
  return { items };
}

async function listWorkflowRuns(workflowId) {
  const runs = [];
  let cursor;
  for (let page = 0; page < 500; page++) {
    let res;
    for (let i = 0; i < 5; i++) {
      res = await api('GET', `/runs?workflowId=${workflowId}&limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      if (res.status === 200) break;
      await sleep(500 * (i + 1));
    }
    if (res.status !== 200) return { runs, error: res.status || res.error };
    runs.push(...res.body.items);
    if (!res.body.nextCursor) break;
    cursor = res.body.nextCursor;
  }
  return { runs };
}

/**
 * Observes the log of every run that is still queued or running (older than `minAgeMs`), and
 * appends each succeeded node record it has not seen yet to `observedFile`: a record that a later
 * execution replaces (same seq) is then still known. Cheap: two list queries a round, plus one log
 * read per active run. Bounded: 5 pages per status.
 */
async function watchActiveRuns(workflowId, observedFile, seen, minAgeMs = 2000) {
  let reads = 0;
  for (const status of ['queued', 'running']) {
    let cursor;
    for (let page = 0; page < 5; page++) {
      const res = await api('GET', `/runs?workflowId=${workflowId}&status=${status}&limit=200${cursor ? `&cursor=${cursor}` : ''}`);
      if (res.status !== 200) break;
      const old = res.body.items.filter((run) => Date.now() - Date.parse(run.createdAt) >= minAgeMs);
      await mapLimit(old, 4, async (run) => {
        const { items } = await fetchLogs(run.id);
        reads += 1;
        for (const item of items) {
          if (item.status !== 'succeeded' || item.type !== 'mcpTool') continue;
          const key = `${run.id}:${item.seq}:${item.startedAt}`;
          if (seen.has(key)) continue;
          seen.add(key);
          fs.appendFileSync(
            observedFile,
            JSON.stringify({
              runId: run.id,
              seq: item.seq,
              nodeId: item.nodeId,
              status: item.status,
              attempt: item.attempt,
              startedAt: item.startedAt,
              finishedAt: item.finishedAt,
              observedAt: nowIso(),
              runStatus: status,
            }) + '\n',
          );
        }
      });
      if (!res.body.nextCursor) break;
      cursor = res.body.nextCursor;
    }
  }
  return reads;
}

/** Per-run facts from the workers' pino logs: messages seen, highest claim, finishing pids. */
function scanWorkerLogs(files) {
  const perRun = new Map();
  const errors = {};
  for (const file of files) {
    if (!fs.existsSync(file)) continue;
    for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
      if (!line.startsWith('{')) continue;
      let row;
      try {
        row = JSON.parse(line);
      } catch {
        continue;
      }
      if (row.level >= 50) {
        const key = `${path.basename(file)}: ${String(row.msg ?? row.err?.message ?? '').slice(0, 140)}`;
        errors[key] = (errors[key] ?? 0) + 1;
      }
      if (!row.runId) continue;
      let r = perRun.get(row.runId);
      if (!r) perRun.set(row.runId, (r = { msgs: {}, maxClaim: 0, finishedBy: [] }));
      r.msgs[row.msg] = (r.msgs[row.msg] ?? 0) + 1;
      if (typeof row.claim === 'number') r.maxClaim = Math.max(r.maxClaim, row.claim);
      if (row.msg === 'run finished')
        r.finishedBy.push({ pid: row.pid, status: row.status, claim: row.claim, at: new Date(row.time).toISOString() });
    }
  }
  return { perRun, errors };
}

function countBy(values) {
  const out = {};
  for (const v of values) out[v] = (out[v] ?? 0) + 1;
  return out;
}

function percentile(sorted, p) {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function report() {
  checkApi();
  const dir = arg('dir');
  const out = arg('out');
  const settleSeconds = Number(arg('settle-seconds', '300'));
  const setupInfo = JSON.parse(fs.readFileSync(path.join(dir, 'setup.json'), 'utf8'));
  const meta = fs.existsSync(path.join(dir, 'meta.json')) ? JSON.parse(fs.readFileSync(path.join(dir, 'meta.json'), 'utf8')) : {};
  const triggers = readJsonl(path.join(dir, 'triggers.jsonl')).rows;
  const loadSummaryFile = path.join(dir, 'triggers.summary.json');
  const loadSummary = fs.existsSync(loadSummaryFile) ? JSON.parse(fs.readFileSync(loadSummaryFile, 'utf8')) : null;
  const faults = readJsonl(path.join(dir, 'faults.jsonl')).rows;
  const procEvents = readJsonl(path.join(dir, 'procs.jsonl')).rows;
  const accepted = triggers.filter((t) => t.type === 'accepted');
  const never = triggers.filter((t) => t.type === 'never');

  // 1. Wait (bounded) until every accepted run is terminal.
  const settleStart = Date.now();
  const deadline = settleStart + settleSeconds * 1000;
  const state = new Map(); // runId -> {found, run}
  let open = [...new Set(accepted.map((t) => t.runId).filter(Boolean))];
  const observedFile = path.join(dir, 'observed.jsonl');
  const seen = new Set(readJsonl(observedFile).rows.map((o) => `${o.runId}:${o.seq}:${o.startedAt}`));
  for (let round = 0; round < 100000 && open.length > 0; round++) {
    await watchActiveRuns(setupInfo.workflowId, observedFile, seen, 0);
    const results = await mapLimit(open, 6, async (runId) => [runId, await fetchRun(runId)]);
    for (const [runId, r] of results) state.set(runId, r);
    open = results.filter(([, r]) => r.found === null || (r.found && !TERMINAL.has(r.run.status))).map(([id]) => id);
    console.error(`[report ${nowIso()}] round ${round}: ${open.length} runs not terminal yet`);
    if (open.length === 0 || Date.now() >= deadline) break;
    await sleep(Math.min(5000, Math.max(0, deadline - Date.now())));
  }
  // A 404 is read once more at the end, in case it was a blip.
  for (const [runId, r] of state) if (r.found === false) state.set(runId, await fetchRun(runId));
  const settleSecondsUsed = (Date.now() - settleStart) / 1000;

  // 2. Logs of every run, effects, worker logs, the workflow's run list.
  const runIds = [...state.keys()];
  const logs = new Map(await mapLimit(runIds, 6, async (runId) => [runId, await fetchLogs(runId)]));
  const { rows: effectRows, malformed: effectsMalformed } = readJsonl(path.join(dir, 'effects.jsonl'));
  const effects = new Map();
  for (const e of effectRows) {
    if (!effects.has(e.key)) effects.set(e.key, []);
    effects.get(e.key).push(e);
  }
  for (const list of effects.values()) list.sort((a, b) => a.atMs - b.atMs);
  const workerLogs = [path.join(dir, '.data/logs/worker.log'), path.join(dir, 'worker2.log')];
  const { perRun: workerFacts, errors: workerErrors } = scanWorkerLogs(workerLogs);
  const { errors: apiErrors } = scanWorkerLogs([path.join(dir, '.data/logs/api.log')]);
  const listed = await listWorkflowRuns(setupInfo.workflowId);

  // 3. Runs.
  const runs = {
    succeeded: 0,
    failed: 0,
    canceled: 0,
    failedByCode: {},
    failedByNode: {},
    notTerminal: [],
    notFound: [],
    unknown: [],
    wrongOutputs: [],
  };
  const durations = [];
  const byTriggerId = new Map(accepted.map((t) => [t.id, t]));
  for (const t of accepted) {
    const r = t.runId ? state.get(t.runId) : { found: false };
    if (!r || r.found === null) {
      runs.unknown.push({ id: t.id, runId: t.runId });
      continue;
    }
    if (!r.found) {
      runs.notFound.push({ id: t.id, runId: t.runId });
      continue;
    }
    const run = r.run;
    if (!TERMINAL.has(run.status)) {
      runs.notTerminal.push({
        id: t.id,
        runId: run.id,
        status: run.status,
        createdAt: run.createdAt,
        startedAt: run.startedAt,
        worker: workerFacts.get(run.id) ?? null,
      });
      continue;
    }
    runs[run.status] += 1;
    if (run.status === 'failed') {
      const code = run.error?.code ?? 'UNKNOWN';
      runs.failedByCode[code] = (runs.failedByCode[code] ?? 0) + 1;
      const node = run.error?.nodeId ?? '-';
      runs.failedByNode[`${code}@${node}`] = (runs.failedByNode[`${code}@${node}`] ?? 0) + 1;
    }
    if (run.status === 'succeeded') {
      const want = { a: `ok:${t.id}:a`, b: `ok:${t.id}:b` };
      if (run.outputs?.a !== want.a || run.outputs?.b !== want.b) runs.wrongOutputs.push({ id: t.id, runId: run.id, outputs: run.outputs });
      if (run.finishedAt && run.createdAt) durations.push(Date.parse(run.finishedAt) - Date.parse(run.createdAt));
    }
  }
  durations.sort((a, b) => a - b);
  const failedSamples = [];
  for (const t of accepted) {
    const r = state.get(t.runId);
    if (r?.found && r.run.status === 'failed' && failedSamples.length < 20)
      failedSamples.push({ id: t.id, runId: r.run.id, error: r.run.error, worker: workerFacts.get(r.run.id) ?? null });
  }

  // 4. Effects against the logs. Each key's calls are matched with the node's log: the recorded
  // success S (the earliest succeeded item) ran from S.startedAt to S.finishedAt, and its
  // successful attempt is the last call inside that window. Every other call is an extra one:
  //  - after S.finishedAt: the node was already recorded succeeded → VIOLATION;
  //  - before S.startedAt: an earlier execution that left no record (crash before the record);
  //  - inside the window but not the last: a retry attempt (node retry policy);
  //  - no S at all: the node never recorded a success (failed run, or not terminal).
  // Independently, an extra call is "at a crash" when a fault overlaps the time between it and the
  // next call of the key (a fault from its kill to 5 s after it was back); the others are repeats
  // with no crash in between, which at-least-once does not explain.
  const faultWindows = faults
    .filter((f) => f.type === 'fault' && f.at)
    .map((f) => ({ from: Date.parse(f.at), to: Date.parse(f.backAt ?? f.at) + 5000, kind: f.kind, target: f.target, n: f.n }));
  const faultBetween = (fromMs, toMs) => faultWindows.filter((w) => w.from <= toMs && w.to >= fromMs);
  const eff = {
    keysCalled: 0,
    keysOnce: 0,
    keysRepeated: 0,
    extraCalls: 0,
    extraByPlace: { afterRecordedSuccess: 0, beforeRecordedExecution: 0, retryWithinRecordedExecution: 0, noSuccessRecorded: 0 },
    extraAtACrash: 0, // not a violation, a fault between the call and its repeat: at-least-once
    extraWithoutCrash: 0, // not a violation, no fault in between: suspicious
    violations: [], // keys with a call after the node was recorded succeeded
    repeatsWithoutCrash: [], // keys with an extra call no fault explains
    atLeastOnceSamples: [],
    nodeRecordedSucceededTwice: [],
    lostSideEffects: [],
    effectsOfRunsNotSucceeded: 0,
    ghostKeys: [], // effect keys of this load whose trigger was never accepted
    malformedLines: effectsMalformed,
  };
  // Succeeded records seen while runs were active (load and settle phases): one a later execution
  // replaced is missing from the final log, but it was durable, so it counts as a recorded success.
  const observedRows = readJsonl(path.join(dir, 'observed.jsonl')).rows;
  const observedBy = new Map();
  const replacedRecords = [];
  for (const o of observedRows) {
    const finalItems = logs.get(o.runId)?.items ?? [];
    const same = finalItems.find((i) => i.seq === o.seq && i.startedAt === o.startedAt);
    if (same) continue;
    const k = `${o.runId}:${o.nodeId}`;
    if (!observedBy.has(k)) observedBy.set(k, []);
    observedBy.get(k).push(o);
    const now = finalItems.find((i) => i.seq === o.seq);
    replacedRecords.push({
      runId: o.runId,
      seq: o.seq,
      nodeId: o.nodeId,
      observed: { startedAt: o.startedAt, finishedAt: o.finishedAt, observedAt: o.observedAt, runStatus: o.runStatus },
      finalAtThatSeq: now ? { nodeId: now.nodeId, status: now.status, startedAt: now.startedAt, finishedAt: now.finishedAt } : null,
    });
  }
  const prefix = loadSummary?.prefix ?? accepted[0]?.id?.split('-')[0];
  for (const [key, calls] of effects) {
    const [id, suffix] = key.split(':');
    if (prefix && !id.startsWith(prefix)) continue;
    eff.keysCalled += 1;
    const t = byTriggerId.get(id);
    if (!t) {
      eff.ghostKeys.push({ key, calls: calls.length });
      continue;
    }
    const r = state.get(t.runId);
    const status = r?.found ? r.run.status : 'unknown';
    if (status !== 'succeeded') eff.effectsOfRunsNotSucceeded += 1;
    if (calls.length === 1) {
      eff.keysOnce += 1;
      continue;
    }
    eff.keysRepeated += 1;
    const nodeId = suffix === 'a' ? 'ea' : 'eb';
    const items = (logs.get(t.runId)?.items ?? []).filter((i) => i.nodeId === nodeId);
    const observedGone = (observedBy.get(`${t.runId}:${nodeId}`) ?? []).map((o) => ({ ...o, replacedLater: true }));
    const successes = [...items.filter((i) => i.status === 'succeeded'), ...observedGone].sort(
      (a, b) => Date.parse(a.finishedAt) - Date.parse(b.finishedAt),
    );
    const S = successes[0];
    const sStart = S ? Date.parse(S.startedAt) : NaN;
    const sEnd = S ? Date.parse(S.finishedAt) : NaN;
    // The recorded attempt's call: the last one inside S's window.
    let recorded = -1;
    if (S) calls.forEach((c, i) => c.atMs >= sStart && c.atMs <= sEnd && (recorded = i));
    if (!S) recorded = calls.length - 1; // keep one as "the" call; the rest are extra
    const described = [];
    let violation = false;
    let unexplained = false;
    calls.forEach((c, i) => {
      if (i === recorded) {
        described.push({ at: c.at, pid: c.pid, session: c.session, place: 'recorded' });
        return;
      }
      eff.extraCalls += 1;
      let place;
      if (!S) place = 'noSuccessRecorded';
      else if (c.atMs > sEnd) place = 'afterRecordedSuccess';
      else if (c.atMs < sStart) place = 'beforeRecordedExecution';
      else place = 'retryWithinRecordedExecution';
      eff.extraByPlace[place] += 1;
      if (place === 'afterRecordedSuccess') violation = true;
      // The neighbour this call is a repeat of / is repeated by.
      const other = calls[i + 1] ?? calls[i - 1];
      const lo = Math.min(c.atMs, other.atMs);
      const hi = Math.max(c.atMs, other.atMs);
      const crashes = faultBetween(lo, hi);
      if (place !== 'afterRecordedSuccess') {
        if (crashes.length > 0) eff.extraAtACrash += 1;
        else {
          eff.extraWithoutCrash += 1;
          unexplained = true;
        }
      }
      described.push({ at: c.at, pid: c.pid, session: c.session, place, faultsBetween: crashes.map((w) => `${w.n}:${w.target}`) });
    });
    const evidence = {
      id,
      key,
      runId: t.runId,
      runStatus: status,
      calls: described,
      log: items.map((i) => ({
        seq: i.seq,
        status: i.status,
        attempt: i.attempt,
        startedAt: i.startedAt,
        finishedAt: i.finishedAt,
        error: i.error?.code ?? null,
      })),
      replacedRecords: observedGone.map((o) => ({
        seq: o.seq,
        startedAt: o.startedAt,
        finishedAt: o.finishedAt,
        observedAt: o.observedAt,
      })),
      worker: workerFacts.get(t.runId) ?? null,
    };
    if (violation) eff.violations.push(evidence);
    else if (unexplained) eff.repeatsWithoutCrash.push(evidence);
    else if (eff.atLeastOnceSamples.length < 10) eff.atLeastOnceSamples.push(evidence);
  }
  for (const t of accepted) {
    const r = state.get(t.runId);
    const items = logs.get(t.runId)?.items ?? [];
    for (const nodeId of ['start', 'ea', 'pause', 'eb', 'end']) {
      const s = items.filter((i) => i.nodeId === nodeId && i.status === 'succeeded');
      if (s.length > 1) eff.nodeRecordedSucceededTwice.push({ id: t.id, runId: t.runId, nodeId, seqs: s.map((i) => i.seq) });
    }
    if (r?.found && r.run.status === 'succeeded') {
      for (const suffix of ['a', 'b']) {
        if (!effects.has(`${t.id}:${suffix}`)) eff.lostSideEffects.push({ id: t.id, runId: t.runId, key: `${t.id}:${suffix}` });
      }
    }
  }

  // Runs the sweep enqueued again (their job was missing), and how many of them called an effect twice.
  const repeatedRunIds = new Set([...eff.violations, ...eff.repeatsWithoutCrash].map((e) => e.runId));
  const requeued = accepted.filter((t) => workerFacts.get(t.runId)?.msgs['run had no job: enqueued again']);
  const sweep = {
    runsEnqueuedAgainBySweep: requeued.length,
    ofThemWithAnEffectTwiceNoCrashExplains: requeued.filter((t) => repeatedRunIds.has(t.runId)).length,
    runsFinishedTwiceInWorkerLogs: accepted.filter((t) => (workerFacts.get(t.runId)?.finishedBy.length ?? 0) > 1).map((t) => t.runId),
  };

  // 5. Idempotency: one run per key, no run the client never heard of.
  const byInputId = new Map();
  for (const run of listed.runs) {
    const id = run.inputs?.id;
    if (!byInputId.has(id)) byInputId.set(id, []);
    byInputId.get(id).push(run.id);
  }
  const acceptedRunIds = new Set(accepted.map((t) => t.runId));
  const idem = {
    runsListed: listed.runs.length,
    listError: listed.error ?? null,
    duplicateRunsForOneKey: [...byInputId].filter(([, ids]) => ids.length > 1).map(([id, ids]) => ({ id, runIds: ids })),
    runsNeverAcknowledged: listed.runs
      .filter((r) => !acceptedRunIds.has(r.id))
      .map((r) => ({ runId: r.id, inputId: r.inputs?.id, status: r.status })),
    acceptedWithDifferentRunId: accepted
      .filter((t) => (byInputId.get(t.id) ?? []).length === 1 && byInputId.get(t.id)[0] !== t.runId)
      .map((t) => t.id),
  };

  // 6. Faults.
  const faultRows = faults.filter((f) => f.type === 'fault');
  const faultsByKind = countBy(faultRows.map((f) => f.kind));
  const recoverMs = faultRows
    .map((f) => f.recoverMs)
    .filter((n) => typeof n === 'number')
    .sort((a, b) => a - b);

  const result = {
    meta: {
      ...meta,
      reportAt: nowIso(),
      settleSeconds,
      settleSecondsUsed,
      workflowId: setupInfo.workflowId,
      toolsetId: setupInfo.toolsetId,
      nodeRetry: setupInfo.retry,
    },
    faults: {
      total: faultRows.length,
      byKind: faultsByKind,
      recoveryFailed: faultRows.filter((f) => !f.ok).length,
      recoverMsP50: percentile(recoverMs, 50),
      recoverMsMax: recoverMs.at(-1) ?? null,
      unexpectedExits: procEvents.filter((e) => e.type === 'unexpected-exit'),
      list: faults,
    },
    triggers: {
      attempted: loadSummary?.attempted ?? triggers.length,
      accepted: accepted.length,
      acceptedReplayed: accepted.filter((t) => t.replayed).length,
      acceptedAfterRetries: accepted.filter((t) => t.attempts > 1).length,
      neverAccepted: never.length,
      neverAcceptedList: never.slice(0, 50),
      throttled: loadSummary?.throttled ?? null,
      attemptErrors: loadSummary?.attemptErrors ?? null,
      attemptErrorSamples: loadSummary?.attemptErrorSamples ?? null,
    },
    runs: {
      succeeded: runs.succeeded,
      failed: runs.failed,
      canceled: runs.canceled,
      failedByCode: runs.failedByCode,
      failedByCodeAndNode: runs.failedByNode,
      notTerminalLost: runs.notTerminal.length,
      notFoundLost: runs.notFound.length,
      unknown: runs.unknown.length,
      wrongOutputs: runs.wrongOutputs.length,
      durationMsP50: percentile(durations, 50),
      durationMsP95: percentile(durations, 95),
      durationMsMax: durations.at(-1) ?? null,
      notTerminalList: runs.notTerminal.slice(0, 50),
      notFoundList: runs.notFound.slice(0, 50),
      unknownList: runs.unknown.slice(0, 50),
      wrongOutputsList: runs.wrongOutputs.slice(0, 20),
      failedSamples,
    },
    effects: {
      ...eff,
      violations: eff.violations.slice(0, 50),
      violationCount: eff.violations.length,
      repeatsWithoutCrash: eff.repeatsWithoutCrash.slice(0, 50),
      repeatsWithoutCrashCount: eff.repeatsWithoutCrash.length,
      lostSideEffectCount: eff.lostSideEffects.length,
      lostSideEffects: eff.lostSideEffects.slice(0, 50),
      ghostKeyCount: eff.ghostKeys.length,
      ghostKeys: eff.ghostKeys.slice(0, 50),
      nodeRecordedSucceededTwiceCount: eff.nodeRecordedSucceededTwice.length,
      observedRecords: observedRows.length,
      replacedRecordCount: replacedRecords.length,
      replacedRecords: replacedRecords.slice(0, 50),
      nodeRecordedSucceededTwice: eff.nodeRecordedSucceededTwice.slice(0, 50),
    },
    idempotency: {
      ...idem,
      duplicateRunsForOneKey: idem.duplicateRunsForOneKey.slice(0, 50),
      duplicateCount: idem.duplicateRunsForOneKey.length,
      runsNeverAcknowledgedCount: idem.runsNeverAcknowledged.length,
      runsNeverAcknowledged: idem.runsNeverAcknowledged.slice(0, 50),
    },
    sweep,
    logs: { workerErrorLines: workerErrors, apiErrorLines: apiErrors },
  };
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, JSON.stringify(result, null, 2));
  const summary = summarize(result);
  fs.writeFileSync(out.replace(/\.json$/, '') + '.txt', summary + '\n');
  console.log(summary);
}

function fmt(obj) {
  const entries = Object.entries(obj ?? {});
  return entries.length === 0 ? 'none' : entries.map(([k, v]) => `${k} ${v}`).join(', ');
}

function summarize(r) {
  const lost = r.runs.notTerminalLost + r.runs.notFoundLost;
  const lines = [
    `chaos run: ${r.meta.faults ?? '?'} faults asked, rate ${r.meta.rate ?? '?'}/s, commit ${String(r.meta.commit ?? '?').slice(0, 10)}, node retry ${r.meta.nodeRetry ? `${r.meta.nodeRetry.maxAttempts}×/${r.meta.nodeRetry.backoffMs} ms` : 'none'}`,
    `faults: ${r.faults.total} (${fmt(r.faults.byKind)}); recovery failed ${r.faults.recoveryFailed}; recover p50 ${r.faults.recoverMsP50} ms, max ${r.faults.recoverMsMax} ms; unexpected exits ${r.faults.unexpectedExits.length}`,
    `triggers: attempted ${r.triggers.attempted}, accepted ${r.triggers.accepted} (after retries ${r.triggers.acceptedAfterRetries}, idempotent replays ${r.triggers.acceptedReplayed}), never accepted ${r.triggers.neverAccepted}; attempt errors: ${fmt(r.triggers.attemptErrors)}`,
    `runs: succeeded ${r.runs.succeeded}, failed ${r.runs.failed} (${fmt(r.runs.failedByCodeAndNode)}), canceled ${r.runs.canceled}, LOST ${lost} (not terminal ${r.runs.notTerminalLost}, not found ${r.runs.notFoundLost}), unreadable ${r.runs.unknown}; wrong outputs ${r.runs.wrongOutputs}; duration p50 ${r.runs.durationMsP50} ms, p95 ${r.runs.durationMsP95} ms, max ${r.runs.durationMsMax} ms; settled in ${Math.round(r.meta.settleSecondsUsed)} s`,
    `effects: keys called ${r.effects.keysCalled}: once ${r.effects.keysOnce}, more than once ${r.effects.keysRepeated} (${r.effects.extraCalls} extra calls)`,
    `  extra calls by place: AFTER the node was recorded succeeded ${r.effects.extraByPlace.afterRecordedSuccess} (VIOLATIONS, in ${r.effects.violationCount} keys); before the recorded execution ${r.effects.extraByPlace.beforeRecordedExecution}; retry attempts inside it ${r.effects.extraByPlace.retryWithinRecordedExecution}; node never recorded succeeded ${r.effects.extraByPlace.noSuccessRecorded}`,
    `  the other extra calls: with a fault between the call and its repeat (at-least-once) ${r.effects.extraAtACrash}; with NO fault in between ${r.effects.extraWithoutCrash} (in ${r.effects.repeatsWithoutCrashCount} keys)`,
    `node records seen succeeded while the run was active, later replaced or gone from the log: ${r.effects.replacedRecordCount} (of ${r.effects.observedRecords} observed)`,
    `lost side effects (succeeded run, effect key missing): ${r.effects.lostSideEffectCount}; node recorded succeeded twice: ${r.effects.nodeRecordedSucceededTwiceCount}; effects of runs that did not succeed: ${r.effects.effectsOfRunsNotSucceeded}; effects of never-accepted triggers: ${r.effects.ghostKeyCount}; malformed effect lines: ${r.effects.malformedLines}`,
    `sweep: runs enqueued again by the recovery sweep ${r.sweep.runsEnqueuedAgainBySweep}, of them with a violation or a repeat no fault explains ${r.sweep.ofThemWithAnEffectTwiceNoCrashExplains}; runs with two "run finished" lines ${r.sweep.runsFinishedTwiceInWorkerLogs.length}`,
    `idempotency: runs listed ${r.idempotency.runsListed}, duplicate runs for one key ${r.idempotency.duplicateCount}, runs the client never got an id for ${r.idempotency.runsNeverAcknowledgedCount}`,
  ];
  const ids = (list) => [...new Set(list.map((e) => `${e.runId} (${e.id})`))].slice(0, 4).join(', ');
  if (r.effects.violationCount) lines.push(`  violations, e.g. runs: ${ids(r.effects.violations)}`);
  if (r.effects.repeatsWithoutCrashCount)
    lines.push(`  repeats with no fault in between, e.g. runs: ${ids(r.effects.repeatsWithoutCrash)}`);
  if (lost)
    lines.push(
      `  LOST runs, e.g.: ${[...r.runs.notTerminalList, ...r.runs.notFoundList]
        .slice(0, 4)
        .map((x) => x.runId)
        .join(', ')}`,
    );
  const errs = Object.entries(r.logs.workerErrorLines)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 5);
  if (errs.length) lines.push(`worker error lines (top): ${errs.map(([k, v]) => `${v}× ${k}`).join(' | ')}`);
  return lines.join('\n');
}

const command = process.argv[2];
const commands = { setup, load, report };
if (!commands[command]) die('usage: client.mjs setup|load|report …');
commands[command]().catch((error) => {
  console.error(error);
  process.exit(1);
});
