/** Real MCP servers for tests (fixtures in-process, server-everything as a child process). */
export { startFixtureServer, type FixtureServer, type FixtureServerOptions } from './fixture-server.js';
export { basicTools, greetTool, numberedTools, trickySchemaTools, TINY_PNG_BASE64 } from './fixture-tools.js';
export type { FixtureTool, FixtureToolContext, FixtureToolResult } from './fixture-mcp-server.js';
export {
  serverEverythingStdioTarget,
  startServerEverything,
  type ServerEverything,
  type ServerEverythingMode,
} from './server-everything.js';
export { childPidsMatching, waitUntil } from './test-helpers.js';
export {
  startStatelessFixtureServer,
  type StatelessFixtureServer,
  type StatelessFixtureServerOptions,
} from './stateless-fixture-server.js';
export { startOAuthFixtureServer, type OAuthFixtureOptions, type OAuthFixtureServer, type SeenToken } from './oauth-fixture-server.js';
