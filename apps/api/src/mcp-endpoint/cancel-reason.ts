/**
 * A client that gives up waiting also sends `notifications/cancelled` (the SDKs do on their request
 * timeout, with a reason like "Request timed out"). That is the client's patience running out, not
 * a wish to stop the work: the run goes on and keeps its result (`GET /runs/:id`). Only other
 * cancellations cancel the run.
 */
export function isClientTimeout(reason: unknown): boolean {
  const text = reason instanceof Error ? reason.message : typeof reason === 'string' ? reason : '';
  return /time(d)?[ -]?out/i.test(text);
}
