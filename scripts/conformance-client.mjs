#!/usr/bin/env node
// The MCP conformance suite's client under test, built on libs/mcp (from dist/: `npm run build`
// first). `node scripts/conformance-client.mjs <server URL>` (the URL is the last argument, as
// `conformance client --command …` appends it): connects with `auto` (every generation), lists the
// tools, calls each with arguments built from its schema, answers elicitation with the requested
// schema's defaults, closes. Exits non-zero when connecting, listing or a call fails.
//
// OAuth (the suite's `auth/*` scenarios): requests go out without a token until the server answers
// 401; then libs/mcp's OAuth code authorizes (discovery, CIMD / DCR / the pre-registered client of
// MCP_CONFORMANCE_CONTEXT, PKCE, scopes), the browser step done headlessly (the suite's
// authorization server redirects at once: the code is read from the Location header), and the
// step is retried on a fresh connection with the bearer fetch. A 403 `insufficient_scope` asks for
// the larger scope the same way; at most MAX_AUTHORIZATIONS authorizations per run. The client
// credentials scenarios' service client gets its token with that grant instead (no browser step),
// authenticating with its secret or, given a private key, with a signed assertion (private_key_jwt).
import { randomBytes } from 'node:crypto';
import {
  beginAuthorization,
  completeAuthorization,
  connectMcp,
  createOAuthCredentials,
  defaultsOf,
  McpError,
  McpErrorCode,
  obtainClientCredentials,
  readSigningKey,
  schemaToFields,
} from '#mcp';

const url = process.argv.at(-1);
if (!url || !/^https?:\/\//.test(url)) {
  console.error('usage: node scripts/conformance-client.mjs <server URL>');
  process.exit(2);
}

/** The suite's authorization servers accept this URL as a Client ID Metadata Document (they do not fetch it). */
const CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json';
/** Never followed: the authorization server's redirect is read, not opened. */
const REDIRECT_URL = 'http://localhost:3000/callback';
const MAX_AUTHORIZATIONS = 3;

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

/** What some scenarios hand over: a pre-registered client (and which grant it is for). */
const scenarioContext = process.env.MCP_CONFORMANCE_CONTEXT ? JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT) : {};
/** A toolset's `auth.grant`: the client credentials grant where the scenario's client is a service. */
const clientCredentials = ['auth/client-credentials-basic', 'auth/client-credentials-jwt'].includes(scenarioContext.name);

/** A toolset's clientId with its clientSecret, or with its privateKey (and signingAlgorithm): private_key_jwt. */
function preRegistered() {
  const { client_id: clientId, client_secret: clientSecret, private_key_pem: pem, signing_algorithm: algorithm } = scenarioContext;
  if (!clientId) return {};
  if (!pem) return { clientId, clientSecret };
  const key = readSigningKey(pem, algorithm);
  return { clientId, tokenEndpointAuthMethod: 'private_key_jwt', privateKey: key.jwk, signingAlgorithm: key.algorithm };
}

const oauthContext = {
  serverUrl: url,
  fetch: globalThis.fetch,
  settings: {
    redirectUrl: REDIRECT_URL,
    clientMetadataUrl: CLIENT_METADATA_URL,
    clientName: 'mcpflow-conformance-client',
    ...preRegistered(),
  },
};

/** The grant in memory: what mcpflow keeps sealed in `oauth_grants`. */
const store = {
  grant: undefined,
  /** The grant before it was lost: its registered client and discovered metadata are reused. */
  previous: undefined,
  requiredScope: undefined,
  load: async () => store.grant,
  save: async (grant) => {
    store.grant = grant;
  },
  exclusive: (work) => work(),
  lost: async (reason, scope) => {
    console.log(`authorization lost: ${reason}`);
    store.previous = store.grant ?? store.previous;
    store.grant = undefined;
    if (scope) store.requiredScope = scope;
  },
};
const credentials = createOAuthCredentials({ ...oauthContext, store });

/** Without a grant, requests go out bare; a 401 then means the server wants OAuth. */
async function clientFetch(input, init) {
  if (store.grant) return credentials.fetch(input, init);
  const response = await fetch(input, init);
  if (response.status !== 401) return response;
  await response.body?.cancel();
  throw new McpError(McpErrorCode.AUTH_REQUIRED, 'the server answered 401: OAuth authorization required');
}

let authorizations = 0;

/** What a person does in a browser, done headlessly: open the URL, catch the redirect's code. */
async function authorize() {
  authorizations += 1;
  if (clientCredentials) {
    store.grant = await obtainClientCredentials(oauthContext, store.previous);
    return;
  }
  const state = randomBytes(16).toString('base64url');
  const { authorizationUrl, pending } = await beginAuthorization(oauthContext, {
    state,
    ...(store.requiredScope ? { scope: store.requiredScope } : {}),
    ...(store.previous ? { previous: store.previous } : {}),
  });
  console.log(`authorization ${authorizations}: ${authorizationUrl}`);
  const response = await fetch(authorizationUrl, { redirect: 'manual' });
  await response.body?.cancel();
  const location = response.headers.get('location');
  if (!location) throw new Error(`the authorization endpoint answered ${response.status} without a redirect`);
  const callback = new URL(location);
  if (callback.searchParams.get('state') !== state) throw new Error('the redirect carries another state');
  const code = callback.searchParams.get('code');
  if (!code) throw new Error(`the redirect carries no code: ${callback.searchParams.get('error') ?? location}`);
  const iss = callback.searchParams.get('iss') ?? undefined;
  store.grant = await completeAuthorization(oauthContext, pending, { code, ...(iss ? { iss } : {}) });
  store.requiredScope = undefined;
}

let connection;

async function connect() {
  await connection?.close();
  connection = undefined;
  connection = await connectMcp(
    { url, transport: 'auto', connectTimeoutMs: 15_000, timeoutMs: 30_000, fetch: clientFetch },
    {
      clientInfo: { name: 'mcpflow-conformance-client', version: '0.1.0' },
      onElicitation: async (request) => {
        const content = defaultsOf(request.requestedSchema);
        console.log(`elicitation: ${request.message} → accept ${JSON.stringify(content)}`);
        return { action: 'accept', content };
      },
    },
  );
  return connection;
}

/** `step` on the connection; when the server wants (more) authorization: authorize, reconnect, again. */
async function authorized(step) {
  for (;;) {
    try {
      if (!connection) await connect();
      return await step(connection);
    } catch (error) {
      if (!(error instanceof McpError) || error.code !== McpErrorCode.AUTH_REQUIRED) throw error;
      if (authorizations >= MAX_AUTHORIZATIONS) throw error;
      await connection?.close();
      connection = undefined;
      await authorize();
    }
  }
}

let failed = false;
try {
  await authorized(async (current) => console.log(`connected: ${current.transport}, ${JSON.stringify(current.serverInfo)}`));
  const tools = await authorized((current) => current.listTools());
  console.log(`tools: ${tools.map((tool) => tool.name).join(', ') || '(none)'}`);
  for (const tool of tools.filter((candidate) => candidate.usable)) {
    const args = argumentsFor(tool);
    try {
      const result = await authorized((current) => current.callTool(tool.name, args));
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
  await connection?.close();
}
process.exit(failed ? 1 : 0);
