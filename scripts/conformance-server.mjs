#!/usr/bin/env node
// Runs the MCP conformance suite's server scenarios against a published MCP server of mcpflow.
//   node scripts/conformance-server.mjs <conformance bin> [scenario…]
// Starts the built API and a worker (dist/: `npm run build` first) on MONGO_URL / REDIS_URL with a
// database and queue prefix of their own, publishes the workflows the scenarios expect by tool
// name, runs each scenario, then stops both processes and drops what they wrote. Prints one line
// per scenario; exits non-zero when one does not pass. The suite's client sends no credentials, so
// it talks to the API through a loopback proxy that adds the run's own admin key (and changes
// nothing else: its Host and Origin reach the API as the suite sent them).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer as createHttpServer, request as httpRequest } from 'node:http';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import mongoose from 'mongoose';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const [conformanceBin, ...asked] = process.argv.slice(2);
const SCENARIOS = asked.length
  ? asked
  : [
      'server-initialize',
      'ping',
      'tools-list',
      'tools-call-simple-text',
      'tools-call-error',
      'tools-call-with-progress',
      'dns-rebinding-protection',
      'server-sse-multiple-streams',
    ];
if (!conformanceBin || !process.env.MONGO_URL || !process.env.REDIS_URL) {
  console.error('usage: MONGO_URL=… REDIS_URL=… node scripts/conformance-server.mjs <conformance bin> [scenario…]');
  process.exit(2);
}

const freePort = () =>
  new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

const id = randomBytes(4).toString('hex');
const mongoUrl = new URL(process.env.MONGO_URL);
mongoUrl.pathname = `/conformance_${id}`;
const port = await freePort();
const apiUrl = `http://127.0.0.1:${port}`;
const adminKey = `mcpf_${randomBytes(32).toString('base64url')}`;
const env = {
  PATH: process.env.PATH ?? '',
  ADMIN_API_KEY: adminKey,
  NODE_ENV: 'test',
  LOG_LEVEL: 'warn',
  API_HOST: '127.0.0.1',
  API_PORT: String(port),
  MONGO_URL: mongoUrl.toString(),
  REDIS_URL: process.env.REDIS_URL,
  QUEUE_PREFIX: `conformance_${id}`,
  SECRETS_KEY: randomBytes(32).toString('hex'),
};
const children = [];
function start(main) {
  const child = spawn(process.execPath, [join(ROOT, 'dist', 'apps', main, 'src', 'main.js')], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  children.push({ child, output: () => output });
  return child;
}

async function call(method, path, body) {
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${adminKey}` };
  const res = await fetch(apiUrl + path, { method, headers, body: body && JSON.stringify(body) });
  const json = await res.json();
  if (res.status >= 300) throw new Error(`${method} ${path} → ${res.status} ${JSON.stringify(json)}`);
  return json;
}

const chain = (name, texts, inputSchema = { type: 'object', properties: {}, additionalProperties: false }) => {
  const nodes = [
    { id: 'start', type: 'start' },
    ...texts.map((text, i) => ({ id: `t${i}`, type: 'template', inputs: { text: { template: text } } })),
  ];
  nodes.push({ id: 'end', type: 'end', inputs: { text: { ref: `t${texts.length - 1}.text` } } });
  const edges = nodes.slice(1).map((node, i) => ({ source: nodes[i].id, target: node.id }));
  return { name, description: `Conformance: ${name}`, inputSchema, nodes, edges };
};

/** Forwards every request to the API with the admin key added; bodies and SSE streams pass through. */
async function startKeyProxy() {
  const proxy = createHttpServer((req, res) => {
    const headers = { ...req.headers, authorization: `Bearer ${adminKey}` };
    const upstream = httpRequest({ host: '127.0.0.1', port, method: req.method, path: req.url, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  });
  await new Promise((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const close = () => {
    proxy.closeAllConnections();
    return new Promise((resolve) => proxy.close(resolve));
  };
  return { url: `http://127.0.0.1:${proxy.address().port}`, close };
}

let failed = 0;
let proxy;
try {
  start('api');
  start('worker');
  const deadline = Date.now() + 30_000;
  while (
    !(await fetch(`${apiUrl}/health/ready`).then(
      (res) => res.ok,
      () => false,
    ))
  ) {
    if (Date.now() > deadline) throw new Error(`the API did not become ready:\n${children.map((c) => c.output()).join('\n')}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const simple = await call('POST', '/workflows', chain('test_simple_text', ['This is a simple text response for testing.']));
  const progress = await call('POST', '/workflows', chain('test_tool_with_progress', ['step one', 'step two', 'step three', 'done']));
  // test_error_handling must fail every time: it calls, through a toolset of this very server, a
  // tool ("withdrawn") that the server stops publishing once the toolset has listed it.
  const withdrawn = await call('POST', '/workflows', chain('withdrawn', ['soon gone']));
  const server = await call('POST', '/mcp-servers', {
    name: 'mcpflow conformance',
    tools: [{ workflowId: simple.id }, { workflowId: progress.id }, { workflowId: withdrawn.id }],
  });
  const self = await call('POST', '/toolsets', {
    name: 'mcpflow itself',
    url: server.url,
    headers: { Authorization: `Bearer ${adminKey}` },
  });
  const failing = await call('POST', '/workflows', {
    name: 'test_error_handling',
    description: 'Conformance: always fails',
    inputSchema: { type: 'object', properties: {} },
    nodes: [
      { id: 'start', type: 'start' },
      { id: 'call', type: 'mcpTool', config: { toolsetId: self.id, tool: 'withdrawn' }, inputs: {} },
      { id: 'end', type: 'end', inputs: { text: { ref: 'call.text' } } },
    ],
    edges: [
      { source: 'start', target: 'call' },
      { source: 'call', target: 'end' },
    ],
  });
  await call('PATCH', `/mcp-servers/${server.id}`, {
    tools: [{ workflowId: simple.id }, { workflowId: progress.id }, { workflowId: failing.id }],
  });
  proxy = await startKeyProxy();
  const serverUrl = `${proxy.url}/mcp/${server.id}`;
  for (const scenario of SCENARIOS) {
    // The suite needs Node 22: the `node` installed beside it comes first on its PATH.
    const suiteEnv = { ...process.env, PATH: `${dirname(conformanceBin)}:${process.env.PATH ?? ''}` };
    const run = spawn(conformanceBin, ['server', '--url', serverUrl, '--scenario', scenario], {
      env: suiteEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    run.stdout.on('data', (chunk) => (output += chunk));
    run.stderr.on('data', (chunk) => (output += chunk));
    const code = await new Promise((resolve) => run.on('close', resolve));
    const summary = output.match(/^Passed: .*$/m)?.[0] ?? output.match(/\d+ passed, \d+ failed.*/)?.[0] ?? '';
    if (code === 0) console.log(`✓ ${scenario} ${summary}`);
    else {
      failed += 1;
      const tail = output
        .split('\n')
        .slice(-40)
        .map((line) => `    ${line.slice(0, 400)}`);
      console.log(`✗ ${scenario} (exit ${code}) ${summary}\n${tail.join('\n')}`);
    }
  }
} catch (error) {
  failed += 1;
  console.error(error);
} finally {
  await proxy?.close();
  for (const { child } of children) child.kill('SIGTERM');
  await Promise.all(
    children.map(({ child }) => (child.exitCode === null ? new Promise((resolve) => child.once('exit', resolve)) : undefined)),
  );
  const connection = await mongoose.createConnection(mongoUrl.toString()).asPromise();
  await connection.dropDatabase();
  await connection.close();
  const redis = new Redis(process.env.REDIS_URL);
  const keys = await redis.keys(`${env.QUEUE_PREFIX}:*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
}
console.log(
  failed
    ? `server conformance: ${failed} of ${SCENARIOS.length} scenarios failed`
    : `server conformance: all ${SCENARIOS.length} scenarios passed`,
);
process.exit(failed ? 1 : 0);
