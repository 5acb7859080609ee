/**
 * `server/discover` answers of stateless (2026-07-28) servers, remembered per process so that a
 * run's pool adopts them instead of asking again: a stateless server then costs no round trip
 * before the first call. Keyed by the pool key (URL + hash of headers, mode and timeout), so an
 * answer is only reused within one set of credentials, as the SDK asks. Bounded in size and age;
 * a failed connect forgets the entry, so a server that changed is asked again.
 */
import type { DiscoverResult } from '@modelcontextprotocol/client';
import { poolKey } from './pool-key.js';
import type { McpHttpTarget } from '../types.js';

const MAX_ENTRIES = 1_000;
const MAX_AGE_MS = 10 * 60_000;

const answers = new Map<string, { discover: DiscoverResult; at: number }>();

export function recallDiscovery(target: McpHttpTarget): DiscoverResult | undefined {
  const key = poolKey(target);
  const entry = answers.get(key);
  if (!entry) return undefined;
  if (Date.now() - entry.at > MAX_AGE_MS) {
    answers.delete(key);
    return undefined;
  }
  return entry.discover;
}

export function rememberDiscovery(target: McpHttpTarget, discover: DiscoverResult): void {
  const key = poolKey(target);
  answers.delete(key);
  answers.set(key, { discover, at: Date.now() });
  if (answers.size > MAX_ENTRIES) answers.delete(answers.keys().next().value as string);
}

export function forgetDiscovery(target: McpHttpTarget): void {
  answers.delete(poolKey(target));
}
