/**
 * Tool sets for fixture servers. `basicTools()` covers the everyday cases (structured output,
 * progress, cancellation, isError, rich content); `trickySchemaTools()` the schemas real servers
 * publish that break naive clients; `numberedTools(n)` fills a paged tools/list.
 */
import type { FixtureTool } from './fixture-mcp-server.js';

/** A 1×1 transparent PNG. */
export const TINY_PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

const object = (properties: Record<string, unknown>, required: string[] = []) => ({ type: 'object', properties, required });

export function basicTools(): FixtureTool[] {
  return [
    {
      name: 'echo',
      description: 'Returns its message.',
      inputSchema: object({ message: { type: 'string', description: 'What to echo' } }, ['message']),
      outputSchema: object({ echo: { type: 'string' } }, ['echo']),
      annotations: { readOnlyHint: true, idempotentHint: true },
      handler: ({ message }) => ({ content: [{ type: 'text', text: String(message) }], structuredContent: { echo: String(message) } }),
    },
    {
      name: 'add',
      description: 'Adds two numbers.',
      inputSchema: object({ a: { type: 'number' }, b: { type: 'number' } }, ['a', 'b']),
      outputSchema: object({ sum: { type: 'number' } }, ['sum']),
      handler: ({ a, b }) => {
        const sum = Number(a) + Number(b);
        return { content: [{ type: 'text', text: String(sum) }], structuredContent: { sum } };
      },
    },
    {
      name: 'slow',
      description: 'Takes `steps` steps of `stepMs` ms, reporting progress after each unless `progress` is false; stops when canceled.',
      inputSchema: object({
        steps: { type: 'integer', minimum: 1, default: 3 },
        stepMs: { type: 'integer', minimum: 0, default: 50 },
        progress: { type: 'boolean', default: true },
      }),
      handler: async ({ steps = 3, stepMs = 50, progress = true }, context) => {
        for (let step = 1; step <= Number(steps); step++) {
          await sleep(Number(stepMs), context.signal);
          if (progress) await context.progress(step, Number(steps), `step ${step}`);
        }
        return { content: [{ type: 'text', text: `done after ${String(steps)} steps` }] };
      },
    },
    {
      name: 'fail',
      description: 'Always answers with an isError result.',
      inputSchema: object({ reason: { type: 'string' } }),
      handler: ({ reason }) => ({
        isError: true,
        content: [{ type: 'text', text: typeof reason === 'string' ? reason : 'failed on purpose' }],
      }),
    },
    {
      name: 'rich',
      description: 'Returns text, an image, an embedded resource and a resource link, each with metadata.',
      inputSchema: object({}),
      handler: () => ({
        content: [
          { type: 'text', text: 'rich content' },
          {
            type: 'image',
            data: TINY_PNG_BASE64,
            mimeType: 'image/png',
            annotations: { audience: ['user'], priority: 0.5 },
            _meta: { source: 'fixture' },
          },
          { type: 'resource', resource: { uri: 'fixture://notes/1', mimeType: 'text/plain', text: 'note one', _meta: { rev: 3 } } },
          {
            type: 'resource_link',
            uri: 'fixture://files/report.pdf',
            name: 'report',
            title: 'Quarterly report',
            description: 'The report',
            mimeType: 'application/pdf',
            size: 1234,
            annotations: { lastModified: '2025-01-01T00:00:00Z' },
          },
        ],
      }),
    },
  ];
}

const echoArgs: FixtureTool['handler'] = (args) => ({ content: [{ type: 'text', text: JSON.stringify(args) }] });

/** Asks for a name mid-call (elicitation / input_required) and greets it; says so when declined. */
export const greetTool: FixtureTool = {
  name: 'greet',
  description: 'Asks who to greet, then greets them.',
  inputSchema: object({}),
  handler: async (_args, { elicit }) => {
    const answer = await elicit(
      'Who should be greeted?',
      object({ name: { type: 'string', default: 'Ada' }, times: { type: 'integer', default: 1 } }, ['name']),
    );
    if (answer.action !== 'accept') return { content: [{ type: 'text', text: `no greeting (${answer.action})` }] };
    const name = String(answer.content?.name);
    return { content: [{ type: 'text', text: `Hello ${name}`.repeat(Number(answer.content?.times ?? 1)) }] };
  },
};

export function trickySchemaTools(): FixtureTool[] {
  return [
    {
      name: 'refs_2020',
      description: '2020-12 schema with $ref/$defs, oneOf/anyOf, type arrays, enums, defaults, nested objects and arrays of objects.',
      inputSchema: {
        type: 'object',
        $defs: {
          Address: object({ street: { type: 'string' }, city: { type: 'string' } }, ['street']),
          Tag: { enum: ['red', 'green'] },
        },
        properties: {
          address: { $ref: '#/$defs/Address', description: 'Where to deliver' },
          addresses: { type: 'array', items: { $ref: '#/$defs/Address' } },
          nickname: { type: ['string', 'null'], default: null },
          count: { type: 'integer', minimum: 0, default: 1, title: 'How many' },
          mode: {
            oneOf: [
              { const: 'fast', title: 'Fast' },
              { const: 'safe', title: 'Safe' },
            ],
          },
          idOrName: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
          ratio: { anyOf: [{ type: 'integer' }, { type: 'number' }, { type: 'null' }] },
          tag: { $ref: '#/$defs/Tag' },
          email: { type: 'string', format: 'email' },
          pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], items: false },
          matrix: { type: 'array', items: { type: 'array', items: { type: 'number' } } },
          anything: {},
        },
        required: ['address', 'mode'],
      },
      handler: echoArgs,
    },
    {
      name: 'legacy_draft07',
      description: 'draft-07 schema: definitions and a tuple `items` array (invalid under 2020-12).',
      inputSchema: {
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        definitions: { Point: object({ x: { type: 'number' }, y: { type: 'number' } }, ['x', 'y']) },
        properties: {
          point: { $ref: '#/definitions/Point' },
          pair: { type: 'array', items: [{ type: 'string' }, { type: 'number' }], additionalItems: false },
        },
        required: ['point'],
      },
      handler: echoArgs,
    },
    {
      name: 'broken_output',
      description: 'Its outputSchema cannot compile.',
      inputSchema: object({}),
      outputSchema: object({ x: { type: 'nonsense' } }),
      handler: () => ({ content: [{ type: 'text', text: 'unreachable by design' }], structuredContent: { x: 1 } }),
    },
    {
      name: 'remote_ref',
      description: 'Its inputSchema points at a remote schema, which is never fetched.',
      inputSchema: object({ config: { $ref: 'https://schemas.example.invalid/config.json' } }),
      handler: echoArgs,
    },
    {
      name: 'wrong_output',
      description: 'Returns structuredContent that does not match its outputSchema.',
      inputSchema: object({}),
      outputSchema: object({ sum: { type: 'number' } }, ['sum']),
      handler: () => ({ content: [{ type: 'text', text: 'five' }], structuredContent: { sum: 'five' } }),
    },
  ];
}

export function numberedTools(count: number): FixtureTool[] {
  return Array.from({ length: count }, (_, i) => ({
    name: `tool_${String(i + 1).padStart(3, '0')}`,
    inputSchema: object({ n: { type: 'integer' } }),
    handler: echoArgs,
  }));
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
