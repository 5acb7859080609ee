#!/usr/bin/env node
/**
 * The reference MCP server for the docs' walkthroughs, on 127.0.0.1 only (server-everything
 * itself listens on all interfaces): node scripts/server-everything.mjs [streamableHttp|sse] [port]
 * Prints the URL to register, runs until SIGINT/SIGTERM. Needs the build (`scripts/dev.sh up` does it).
 */
import { startServerEverything } from '#mcp/testing';

const [mode = 'streamableHttp', port = '3001'] = process.argv.slice(2);
if ((mode !== 'streamableHttp' && mode !== 'sse') || !/^\d+$/.test(port)) {
  console.error('usage: node scripts/server-everything.mjs [streamableHttp|sse] [port]');
  process.exit(2);
}
const everything = await startServerEverything(mode, Number(port));
console.log(everything.url);
const stop = () => void everything.close().then(() => process.exit(0));
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
