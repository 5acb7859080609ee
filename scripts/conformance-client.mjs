#!/usr/bin/env node
// The MCP conformance suite's client under test, built on libs/mcp (from dist/: `npm run build`
// first). `node scripts/conformance-client.mjs <server URL>` (the URL is the last argument, as
// `conformance client --command …` appends it): connects with `auto` (every generation), lists the
// tools, calls each with arguments built from its schema, answers elicitation with the requested
// schema's defaults, closes. Exits non-zero when connecting, listing or a call fails.
import { connectMcp, defaultsOf, schemaToFields } from '#mcp';

const url = process.argv.at(-1);
if (!url || !/^https?:\/\//.test(url)) {
  console.error('usage: node scripts/conformance-client.mjs <server URL>');
  process.exit(2);
}

/** A value for a field: its default, else its first enum value, else a plain value of its type. */
function sampleValue(field) {
  if ('default' in field) return field.default;
  if (field.enum?.length) return field.enum[0];
  if (field.valueType.startsWith('array<')) return [];
  const byType = { string: 'conformance', number: 1, integer: 1, boolean: true, object: {} };
  return field.valueType in byType ? byType[field.valueType] : null;
}

function argumentsFor(tool) {
  const fields = schemaToFields(tool.inputSchema).filter((field) => field.required || 'default' in field);
  return Object.fromEntries(fields.map((field) => [field.key, sampleValue(field)]));
}

const connection = await connectMcp(
  { url, transport: 'auto', connectTimeoutMs: 15_000, timeoutMs: 30_000 },
  {
    clientInfo: { name: 'mcpflow-conformance-client', version: '0.1.0' },
    onElicitation: async (request) => {
      const content = defaultsOf(request.requestedSchema);
      console.log(`elicitation: ${request.message} → accept ${JSON.stringify(content)}`);
      return { action: 'accept', content };
    },
  },
);
let failed = false;
try {
  console.log(`connected: ${connection.transport}, ${JSON.stringify(connection.serverInfo)}`);
  const tools = await connection.listTools();
  console.log(`tools: ${tools.map((tool) => tool.name).join(', ') || '(none)'}`);
  for (const tool of tools.filter((candidate) => candidate.usable)) {
    const args = argumentsFor(tool);
    try {
      const result = await connection.callTool(tool.name, args);
      console.log(`${tool.name}(${JSON.stringify(args)}) → ${result.isError ? 'isError: ' : ''}${result.text.slice(0, 200)}`);
    } catch (error) {
      failed = true;
      console.error(`${tool.name}(${JSON.stringify(args)}) failed: ${error.code ?? ''} ${error.message}`);
    }
  }
} catch (error) {
  failed = true;
  console.error(`failed: ${error.code ?? ''} ${error.message}`);
} finally {
  await connection.close();
}
process.exit(failed ? 1 : 0);
