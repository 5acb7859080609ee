/**
 * The port an `http` node sends through: the host's SSRF-safe fetch (outbound policy, DNS
 * pinning, redirect checks), under `services.extras[HTTP_FETCH_EXTRA]`; and, per run, the run's
 * secret inputs under `services.extras[RUN_SECRETS_EXTRA]` for `{{inputs.name}}` header values.
 */
export type HttpFetch = (url: string, init: RequestInit) => Promise<Response>;
export type RunSecrets = () => Promise<Record<string, unknown>>;

export const HTTP_FETCH_EXTRA = 'httpFetch';
export const RUN_SECRETS_EXTRA = 'runSecrets';

/** Failure codes of `http` nodes (the one place they are spelled). */
export const HTTP_ERROR_CODES = {
  /** The answer's status is not 2xx (and `failOnStatus` is on, the default). */
  status: 'HTTP_STATUS',
  /** No answer: connection refused, reset, DNS failure (after the retries). */
  unreachable: 'HTTP_UNREACHABLE',
  /** No answer within `timeoutMs`. */
  timeout: 'HTTP_TIMEOUT',
  /** The answer's body is larger than `maxResponseBytes`. */
  tooLarge: 'HTTP_RESPONSE_TOO_LARGE',
  /** This host gave the engine no HTTP fetch. */
  notConfigured: 'HTTP_NOT_CONFIGURED',
} as const;
