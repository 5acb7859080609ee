/** libs/mcp — the only public surface: MCP client, per-run pool, JSON Schema → typed fields, test fixtures. */
export type {
  CallToolOptions,
  ConnectAttempt,
  ConnectionFailure,
  ConnectOptions,
  ElicitationAnswer,
  ElicitationDeferral,
  ElicitationRequest,
  FetchFunction,
  HttpTransport,
  InputResponses,
  JsonSchema,
  ListToolsOptions,
  McpConnection,
  McpContent,
  McpHttpTarget,
  McpStdioTarget,
  McpTarget,
  NormalizedToolResult,
  PendingInput,
  ProgressUpdate,
  RequestedTransport,
  ResolvedTransport,
  ServerInfo,
  TargetKind,
  ToolSnapshot,
  TransportMode,
  TypedField,
  ValueType,
} from './types.js';
export { HTTP_TRANSPORTS, REQUESTED_TRANSPORTS, TARGET_KINDS, TRANSPORTS, TRANSPORT_MODES, isHttpTransport } from './types.js';
export { McpError, McpErrorCode, isMcpError, type ArgumentError, type McpErrorDetails } from './errors.js';
export { connectMcp, listToolset, type ToolsetListing } from './connect.js';
export { terminateSession, type SessionTermination, type TerminateSessionOptions } from './client/terminate-session.js';
export { toolErrorOf } from './client/tool-result.js';
export { DEFAULT_CALL_TIMEOUT_MS, DEFAULT_MAX_TOTAL_TIMEOUT_MS } from './client/call-deadline.js';
export { DEFAULT_CONNECT_TIMEOUT_MS } from './client/open.js';
export { isModernProtocol, MODERN_PROTOCOL_VERSION } from './client/modern-session.js';
export { McpClientPool, mcpClientMemory, type AcquiredConnection, type PoolOptions, type PooledSession } from './pool/client-pool.js';
export { poolKey } from './client/pool-key.js';
export { schemaToFields } from './schema/fields.js';
export { defaultsOf } from './schema/defaults.js';
export { validateArguments, type ArgumentValidation } from './schema/validate-arguments.js';
export { compileSchema, dialectOf, type CompiledSchema, type SchemaDialect } from './schema/dialect-validator.js';
export { createOutboundFetch, type OutboundFetch, type OutboundFetchOptions } from './outbound/outbound-fetch.js';
export { createOutboundPolicy, type OutboundPolicy, type OutboundPolicyOptions } from './outbound/policy.js';
export { OutboundBlockedError, findOutboundBlock } from './outbound/errors.js';
export { CROSS_ORIGIN_SAFE_HEADERS, originOf, storedSecretsMayFollow } from './outbound/credential-origin.js';
export {
  beginAuthorization,
  completeAuthorization,
  obtainClientCredentials,
  type BeginAuthorizationOptions,
  type OAuthContext,
  type PendingAuthorization,
} from './oauth/authorize.js';
export {
  createOAuthCredentials,
  createOAuthFetch,
  DEFAULT_REFRESH_SKEW_MS,
  type OAuthCredentials,
  type OAuthFetchOptions,
  type OAuthGrantStore,
} from './oauth/oauth-fetch.js';
export {
  grantServes,
  TOKEN_ENDPOINT_AUTH_METHODS,
  type OAuthClientSettings,
  type OAuthFlow,
  type OAuthGrant,
  type TokenEndpointAuthMethod,
} from './oauth/grant.js';
export { readSigningKey, SIGNING_ALGORITHMS, SigningKeyError, type SigningAlgorithm, type SigningKey } from './oauth/signing-key.js';
