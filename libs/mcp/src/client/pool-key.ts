import { createHash } from 'node:crypto';
import type { McpTarget } from '../types.js';

/**
 * Which targets may share one client: the URL plus a hash of everything that changes what the
 * server sees or how calls behave — headers (credentials: two toolsets on one URL with different
 * keys never share), transport mode and the default call timeout. Header names are case-insensitive.
 */
export function poolKey(target: McpTarget): string {
  if (target.kind === 'stdio') {
    return `stdio:${digest([target.command, target.args ?? [], sorted(target.env ?? {}), target.cwd ?? '', target.timeoutMs ?? null])}`;
  }
  const headers = sorted(Object.fromEntries(Object.entries(target.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value])));
  return `${target.url}#${digest([headers, target.transport ?? 'auto', target.timeoutMs ?? null, target.credentialScope ?? null])}`;
}

function sorted(record: Record<string, string>): [string, string][] {
  return Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

function digest(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 32);
}
