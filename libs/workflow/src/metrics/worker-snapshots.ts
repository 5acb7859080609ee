import type { Redis } from 'ioredis';

/** How often a worker pushes its `work` series; the API sums the pushes younger than SNAPSHOT_TTL_MS. */
export const SNAPSHOT_INTERVAL_MS = 5_000;
const SNAPSHOT_TTL_MS = 3 * SNAPSHOT_INTERVAL_MS;

const snapshotKeyPrefix = (queuePrefix: string) => `${queuePrefix}:metrics:worker:`;

/**
 * A worker's `work` series (runs, nodes, MCP calls and sessions) as JSON under a key of its own
 * that expires unless pushed again: the API's /metrics sums the live workers' with its own, so one
 * scrape of the API sees the whole deployment (a worker gone for SNAPSHOT_TTL_MS drops out).
 */
export async function pushWorkerSnapshot(redis: Redis, queuePrefix: string, workerId: string, snapshot: object[]): Promise<void> {
  await redis.set(`${snapshotKeyPrefix(queuePrefix)}${workerId}`, JSON.stringify(snapshot), 'PX', SNAPSHOT_TTL_MS);
}

/** Every live worker's last snapshot (SCAN, not KEYS: Redis is never blocked by it). */
export async function readWorkerSnapshots(redis: Redis, queuePrefix: string): Promise<object[][]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, found] = await redis.scan(cursor, 'MATCH', `${snapshotKeyPrefix(queuePrefix)}*`, 'COUNT', 200);
    keys.push(...found);
    cursor = next;
  } while (cursor !== '0');
  if (!keys.length) return [];
  const values = await redis.mget(...keys);
  return values.flatMap((value) => (value ? [JSON.parse(value) as object[]] : []));
}
