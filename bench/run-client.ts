/** What the run benchmarks do as a client of the API: the echo workflow, one timed `?wait` run, percentiles. */

export const round = (value: number, digits = 2) => Number(value.toFixed(digits));

export const percentile = (times: number[], p: number) => {
  const sorted = [...times].sort((a, b) => a - b);
  return round(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]);
};

/** Registers the MCP server at `mcpUrl` (a toolset named `name`) and a `start → mcpTool(echo) → end` workflow on it; the workflow's id. */
export async function createEchoWorkflow(apiUrl: string, mcpUrl: string, name = 'fixture'): Promise<string> {
  const post = async (path: string, body: unknown) => {
    const res = await fetch(apiUrl + path, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const json = (await res.json()) as { id: string };
    if (res.status !== 201) throw new Error(`POST ${path} → ${res.status} ${JSON.stringify(json)}`);
    return json.id;
  };
  const toolsetId = await post('/toolsets', { name, url: mcpUrl });
  return post('/workflows', {
    name: `echo on ${name}`,
    inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
    nodes: [
      { id: 'start', type: 'start' },
      { id: 'echo', type: 'mcpTool', config: { toolsetId, tool: 'echo' }, inputs: { message: { ref: 'start.message' } } },
      { id: 'end', type: 'end', inputs: { echoed: { ref: 'echo.text' } } },
    ],
    edges: [
      { source: 'start', target: 'echo' },
      { source: 'echo', target: 'end' },
    ],
  });
}

/** POST a run and wait for its end in the same request; ms from POST to the terminal answer. */
export async function timeRun(apiUrl: string, workflowId: string, index: number, headers: Record<string, string> = {}): Promise<number> {
  const began = performance.now();
  const res = await fetch(`${apiUrl}/workflows/${workflowId}/runs?wait=60000`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ inputs: { message: `run ${index}` } }),
  });
  const run = (await res.json()) as { status: string; outputs: { echoed?: string } };
  const elapsed = performance.now() - began;
  if (res.status !== 200 || run.status !== 'succeeded' || run.outputs.echoed !== `run ${index}`)
    throw new Error(`run ${index}: ${res.status} ${JSON.stringify(run)}`);
  return elapsed;
}
