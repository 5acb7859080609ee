// The fuzz step's hand-written cases (scripts/fuzz.sh, after Schemathesis): bodies that generators do
// not reach — JSON nested thousands deep, NUL inside strings — sent to the routes that store or
// parse them. Each must answer 400 (BODY_TOO_DEEP, or VALIDATION_FAILED/WORKFLOW_INVALID with the
// NUL's path); any other answer fails the step. Usage: node scripts/fuzz-bodies.mjs <base URL> <key>
const [base, key] = process.argv.slice(2);
const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const deep = (depth) => '['.repeat(depth) + ']'.repeat(depth);
const ANY_ID = '0123456789abcdef01234567';

const cases = [
  ...[
    '/workflows',
    '/workflows/validate',
    `/workflows/${ANY_ID}/runs`,
    '/toolsets',
    '/toolsets/preview',
    '/api-keys',
    '/mcp-servers',
    '/providers',
  ].map((path) => ({ path, body: `{"name":${deep(6000)}}`, code: 'BODY_TOO_DEEP' })),
  { path: `/mcp/${ANY_ID}`, body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":${deep(6000)}}`, code: 'BODY_TOO_DEEP' },
  { path: '/api-keys', body: JSON.stringify({ name: 'a\u0000b', scopes: ['read'] }), code: 'VALIDATION_FAILED' },
  { path: '/workflows', body: JSON.stringify({ name: 'a\u0000b', nodes: [], edges: [] }), code: 'WORKFLOW_INVALID' },
  { path: '/toolsets', body: JSON.stringify({ name: 'a\u0000b', url: 'http://127.0.0.1:9/mcp' }), code: 'VALIDATION_FAILED' },
  { path: '/mcp-servers', body: JSON.stringify({ name: 'a\u0000b', tools: [] }), code: 'VALIDATION_FAILED' },
  {
    path: '/providers',
    body: JSON.stringify({ name: 'a\u0000b', baseURL: 'https://x.example/v1', apiKey: 'k' }),
    code: 'VALIDATION_FAILED',
  },
];

let failed = 0;
for (const { path, body, code } of cases) {
  const res = await fetch(base + path, { method: 'POST', headers, body });
  const answer = await res.json().catch(() => ({}));
  const ok = res.status === 400 && answer.code === code;
  if (!ok) failed += 1;
  console.log(
    `${ok ? 'ok  ' : 'FAIL'} POST ${path} (${body.length} bytes): ${res.status} ${answer.code ?? ''}${ok ? '' : ` (expected 400 ${code})`}`,
  );
}
console.log(`fuzz-bodies: ${cases.length - failed} of ${cases.length} answered as expected`);
process.exit(failed ? 1 : 0);
