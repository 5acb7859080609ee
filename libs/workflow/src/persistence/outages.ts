/**
 * Which dependency an error says is unreachable: the store (MongoDB/FerretDB) or the queue
 * (Redis), or neither. Decided by the drivers' error classes (their `name`) and socket codes —
 * by message only for ioredis's two offline-queue errors, which are plain Errors —, following `cause` chains (Nest and the libs wrap errors). The API answers such a request 503
 * with Retry-After (a client cannot tell a 500 from a bug, and its retry with the same
 * Idempotency-Key is safe); a worker puts the run back at the head of the queue and pauses taking
 * runs, without spending one of the job's attempts (apps/worker run-worker.ts).
 */
export type OutageCode = 'STORE_UNAVAILABLE' | 'QUEUE_UNAVAILABLE';

/** What a client waits before retrying: about the time a restarted dependency takes to come back. */
export const OUTAGE_RETRY_AFTER_SECONDS = 2;

/** The MongoDB driver's (and mongoose's) errors for a server it cannot reach or lost the connection to. */
const STORE_ERRORS = new Set([
  'MongoServerSelectionError',
  'MongooseServerSelectionError',
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoNotConnectedError',
  'MongoTopologyClosedError',
  'MongoPoolClearedError',
  'MongoServerClosedError',
]);

/**
 * FerretDB v1 on PostgreSQL, while PostgreSQL is down, starting up or just killed: FerretDB itself
 * answers, with a MongoServerError of code 1 (`InternalError`) whose message ends in the pgx error.
 * Recognised by pgx's connection-level shapes only: "failed to connect to `…`" (refused dial, or
 * the server's "starting up"), "unexpected EOF" as the whole cause (the connection dropped under a
 * query), and a SQLSTATE of class 08 (connection exception) or 57P01–57P03 (admin/crash shutdown,
 * cannot connect now). Any other InternalError stays a 500.
 */
const FERRETDB_INTERNAL_ERROR = 1;
/** A command's answer, and an insert's (the driver reports write errors of inserts as a bulk write error). */
const FERRETDB_ANSWERS = new Set(['MongoServerError', 'MongoBulkWriteError']);
const POSTGRES_UNREACHABLE = /failed to connect to `|(^|\] )unexpected EOF$|\(SQLSTATE (08[0-9A-Z]{3}|57P0[123])\)/;

function isPostgresBehindFerretDbDown(error: Error): boolean {
  const { code } = error as { code?: unknown };
  return FERRETDB_ANSWERS.has(error.name) && code === FERRETDB_INTERNAL_ERROR && POSTGRES_UNREACHABLE.test(error.message);
}

/** ioredis's: retries used up, or the connection closed or not writable (offline queue off). */
const QUEUE_ERRORS = new Set(['MaxRetriesPerRequestError']);
/** Socket errors that reach the API unwrapped come from ioredis (the MongoDB driver wraps its own in MongoNetworkError). */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTCONN']);

function ownCode(error: Error): OutageCode | undefined {
  if (STORE_ERRORS.has(error.name) || error.name.startsWith('MongoNetwork')) return 'STORE_UNAVAILABLE';
  // mongoose queues operations while disconnected and gives up with this error after `bufferTimeoutMS`.
  if (error.name === 'MongooseError' && /buffering timed out/.test(error.message)) return 'STORE_UNAVAILABLE';
  if (isPostgresBehindFerretDbDown(error)) return 'STORE_UNAVAILABLE';
  if (QUEUE_ERRORS.has(error.name)) return 'QUEUE_UNAVAILABLE';
  // ioredis with the offline queue off: plain Errors, told apart by these two fixed messages.
  if (/^(Connection is closed\.|Stream isn't writeable and enableOfflineQueue options is false)$/.test(error.message)) {
    return 'QUEUE_UNAVAILABLE';
  }
  const { code } = error as { code?: unknown };
  return typeof code === 'string' && SOCKET_CODES.has(code) ? 'QUEUE_UNAVAILABLE' : undefined;
}

export function outageOf(error: unknown): OutageCode | undefined {
  const seen = new Set<unknown>();
  for (let current = error; current instanceof Error && !seen.has(current); current = current.cause) {
    seen.add(current);
    const code = ownCode(current);
    if (code) return code;
  }
  return undefined;
}
