import { isIP } from 'node:net';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { z } from 'zod';

/**
 * The one configuration of API and worker: read from the environment once at start-up,
 * validated, typed. A wrong or missing value stops the process with the variable's name.
 */

const int = (fallback: number, min = 0) => z.coerce.number().int().min(min).default(fallback);

const DURATION_UNITS_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** A duration with its unit (`14d`, `36h`, `90m`, `600s`) in ms; `0` = no limit. */
const duration = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((value, ctx) => {
      const match = /^\s*(\d+)\s*([smhd])?\s*$/.exec(value);
      if (match && (match[2] || match[1] === '0')) return Number(match[1]) * (match[2] ? DURATION_UNITS_MS[match[2]] : 0);
      ctx.addIssue({ code: 'custom', message: 'must be a whole number with a unit: s, m, h or d (e.g. 14d), or 0 for no limit' });
      return z.NEVER;
    });

const urlWithScheme = (schemes: string[]) =>
  z.string().refine(
    (value) => {
      try {
        return schemes.includes(new URL(value).protocol.replace(':', ''));
      } catch {
        return false;
      }
    },
    `must be a URL with scheme ${schemes.join(' or ')}`,
  );

const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  API_HOST: z.string().min(1).default('127.0.0.1'),
  API_PORT: int(3000).pipe(z.number().max(65535)),
  MONGO_URL: urlWithScheme(['mongodb', 'mongodb+srv']),
  REDIS_URL: urlWithScheme(['redis', 'rediss']),
  QUEUE_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_.:-]+$/)
    .default('mcpflow'),
  SECRETS_KEY: z.string().optional(),
  SECRETS_KEY_PREVIOUS: z.string().optional(),
  WORKER_CONCURRENCY: int(10, 1),
  WORKER_SHUTDOWN_GRACE_MS: int(10_000),
  WORKER_CLOSE_DEADLINE_MS: int(20_000, 1000),
  WORKER_METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  WORKER_METRICS_PORT: int(9464).pipe(z.number().max(65535)),
  RUN_LOCK_DURATION_MS: int(5_000, 1000),
  RUN_STALLED_INTERVAL_MS: int(1_500, 100),
  RUN_MAX_STALLED_COUNT: int(5),
  RUN_SWEEP_INTERVAL_MS: int(2_000, 100),
  RUN_REQUEUE_AFTER_MS: int(4_000, 100),
  RUN_MAX_NODE_EXECUTIONS: int(500, 1),
  RUN_DEADLINE_MS: int(30 * 60_000, 1000),
  MCP_CALL_TIMEOUT_MS: int(300_000, 100),
  RUN_RETENTION_MAX_AGE: duration('14d'),
  RUN_RETENTION_MAX_COUNT: int(10_000),
  RUN_RETENTION_INTERVAL_MS: int(5 * 60_000, 1000),
  RUN_CONCURRENCY: int(10, 1),
  NODE_OUTPUT_MAX_BYTES: int(256 * 1024, 1024),
  BODY_LIMIT_BYTES: int(1024 * 1024, 1024),
  PUBLIC_BASE_URL: z.preprocess((value) => (value === '' ? undefined : value), urlWithScheme(['http', 'https']).optional()),
  MCP_ALLOWED_HOSTS: z.string().default(''),
  MCP_KEY_IN_PATH: z.enum(['on', 'off']).default('off'),
  OUTBOUND_ALLOW: z.string().default(''),
  OUTBOUND_DENY: z.string().default(''),
  TOOLSET_HEALTH_INTERVAL_MS: int(0),
  TOOLSET_REFRESH_MIN_INTERVAL_MS: int(60_000, 100),
  TOOL_CALL_RETENTION_MAX_AGE: duration('30d'),
  STDIO_TOOLSETS: z.enum(['on', 'off']).default('off'),
  STDIO_COMMANDS: z.string().default(''),
  STDIO_WORK_DIR: z.string().default(join(tmpdir(), 'mcpflow-stdio')),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  ADMIN_API_KEY: z.preprocess(
    (value) => (value === '' ? undefined : value),
    z
      .string()
      .regex(/^mcpf_[A-Za-z0-9_-]{43}$/, 'must be mcpf_ followed by 43 base64url characters (32 random bytes)')
      .optional(),
  ),
  RATE_LIMIT_PER_MINUTE: int(1200),
  AUTH_FAILURES_PER_MINUTE: int(20, 1),
  AUTH_FAILURE_BLOCK_SECONDS: int(300, 1),
  CACHE_MAX_AGE_MS: int(0),
  SCHEDULE_CATCH_UP_GRACE_MS: int(60_000, 100),
  HOOK_BODY_LIMIT_BYTES: int(1024 * 1024, 1024),
  HOOK_RATE_LIMIT_PER_MINUTE: int(120),
  HOOK_TIMESTAMP_TOLERANCE_SECONDS: int(300, 1),
  HOOK_WAIT_MS: int(30_000, 0).pipe(z.number().max(120_000)),
  TRUST_PROXY: z.string().default('off'),
});

export type AppConfig = Readonly<{
  env: 'development' | 'production' | 'test';
  /** `trustProxy`: Express's `trust proxy` (false: forwarded headers ignored; a hop count; or the proxies' addresses/CIDRs). */
  api: { host: string; port: number; bodyLimitBytes: number; trustProxy: TrustProxy };
  /**
   * Published MCP servers: `publicBaseUrl` is what their `url` starts with (a proxy's address when
   * there is one; default `http://API_HOST:API_PORT`); requests whose Host (or Origin) is not the
   * public host, a loopback name or one of `allowedHosts` are refused (DNS rebinding).
   * `keyInPath`: `/mcp/<id>/key/<api key>` is served too, for clients that cannot send headers (weaker).
   */
  mcp: { publicBaseUrl?: string; allowedHosts: string[]; keyInPath: boolean };
  mongoUrl: string;
  redisUrl: string;
  queuePrefix: string;
  secrets: { key?: string; previousKey?: string };
  /** `closeDeadlineMs`: after the grace period, how long the close (hand-backs, connections) may take before the process exits anyway. */
  worker: { concurrency: number; shutdownGraceMs: number; closeDeadlineMs: number };
  /** The worker's own `GET /metrics` listener (loopback unless told; port 0 = any free port, as tests use). */
  workerMetrics: { host: string; port: number };
  /** Run recovery: BullMQ stalled-job detection and the worker's sweep of runs without a live job. */
  recovery: { lockDurationMs: number; stalledIntervalMs: number; maxStalledCount: number; sweepIntervalMs: number; requeueAfterMs: number };
  /**
   * Pruning of finished runs: by age and by count, whichever comes first; 0 = no limit (both 0 = off).
   * `toolCallMaxAgeMs`: tool-call records (usage) older than this go in the same passes; 0 = kept.
   */
  retention: { maxAgeMs: number; maxCount: number; intervalMs: number; toolCallMaxAgeMs: number };
  limits: {
    maxNodeExecutions: number;
    runDeadlineMs: number;
    callTimeoutMs: number;
    runConcurrency: number;
    maxOutputBytes: number;
  };
  outbound: { allow: string[]; deny: string[] };
  /** Periodic health checks of every toolset by one worker at a time; 0 = off. */
  toolsetHealthIntervalMs: number;
  /** The smallest `refreshIntervalMs` a toolset may ask for. */
  toolsetRefreshMinIntervalMs: number;
  /** Local (stdio) toolsets: off unless enabled, and then only the listed commands (names or absolute paths). */
  stdio: { enabled: boolean; commands: string[]; workDir: string };
  logLevel: string;
  /**
   * How long an API process trusts its in-process copy of an API key or of a workflow's current
   * record (0 = no copies): changes reach other processes at once over Redis, this bounds a lost message.
   */
  cacheMaxAgeMs: number;
  /** API keys: the seeded admin key (a secret: never logged) and the limits of the auth guard. */
  auth: { adminApiKey?: string; rateLimitPerMinute: number; failuresPerMinute: number; failureBlockSeconds: number };
  /**
   * Schedules and inbound webhooks. `catchUpGraceMs`: a firing taken later than this after its time
   * was missed (a `catchUp: "none"` schedule skips it). Hooks: body cap, deliveries per minute and
   * hook (0 = no limit), how old a signed timestamp may be, how long `respond: "outputs"` waits.
   */
  triggers: {
    catchUpGraceMs: number;
    hookBodyLimitBytes: number;
    hookRatePerMinute: number;
    hookToleranceSeconds: number;
    hookWaitMs: number;
  };
}>;

/** Which proxies' `X-Forwarded-For` decides a client's address (rate limits, the failed-authentication block). */
export type TrustProxy = false | number | string[];

/** `off` (default), a hop count (`1`), or addresses/CIDRs of the proxies (`10.0.0.0/8, 127.0.0.1`). */
function trustProxyOf(value: string): TrustProxy | string {
  const trimmed = value.trim().toLowerCase();
  if (trimmed === '' || trimmed === 'off' || trimmed === 'false' || trimmed === '0') return false;
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const entries = list(trimmed);
  const bad = entries.filter((entry) => {
    const [address, bits, extra] = entry.split('/');
    const family = isIP(address);
    if (!family || extra !== undefined) return true;
    return bits !== undefined && !(/^\d+$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128));
  });
  return bad.length ? `TRUST_PROXY: "off", a hop count, or addresses/CIDRs of the proxies (not ${bad.join(', ')})` : entries;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

const list = (value: string) =>
  value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);

export function loadConfig(env: Record<string, string | undefined> = process.env): AppConfig {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`));
  }
  const e = parsed.data;
  const trustProxy = trustProxyOf(e.TRUST_PROXY);
  const problems = [
    ...(typeof trustProxy === 'string' ? [trustProxy] : []),
    ...checkSecretsKey('SECRETS_KEY', e.SECRETS_KEY, e.NODE_ENV === 'production'),
    ...checkSecretsKey('SECRETS_KEY_PREVIOUS', e.SECRETS_KEY_PREVIOUS, false),
    ...checkStdio(e.STDIO_TOOLSETS === 'on', list(e.STDIO_COMMANDS), e.STDIO_WORK_DIR),
    ...(e.TOOLSET_HEALTH_INTERVAL_MS > 0 && e.TOOLSET_HEALTH_INTERVAL_MS < 100
      ? ['TOOLSET_HEALTH_INTERVAL_MS: 0 (off) or at least 100']
      : []),
  ];
  if (problems.length) throw new ConfigError(problems);
  return {
    env: e.NODE_ENV,
    api: { host: e.API_HOST, port: e.API_PORT, bodyLimitBytes: e.BODY_LIMIT_BYTES, trustProxy: trustProxy as TrustProxy },
    mcp: {
      publicBaseUrl: e.PUBLIC_BASE_URL?.replace(/\/+$/, ''),
      allowedHosts: list(e.MCP_ALLOWED_HOSTS),
      keyInPath: e.MCP_KEY_IN_PATH === 'on',
    },
    mongoUrl: e.MONGO_URL,
    redisUrl: e.REDIS_URL,
    queuePrefix: e.QUEUE_PREFIX,
    secrets: { key: e.SECRETS_KEY, previousKey: e.SECRETS_KEY_PREVIOUS },
    worker: { concurrency: e.WORKER_CONCURRENCY, shutdownGraceMs: e.WORKER_SHUTDOWN_GRACE_MS, closeDeadlineMs: e.WORKER_CLOSE_DEADLINE_MS },
    workerMetrics: { host: e.WORKER_METRICS_HOST, port: e.WORKER_METRICS_PORT },
    recovery: {
      lockDurationMs: e.RUN_LOCK_DURATION_MS,
      stalledIntervalMs: e.RUN_STALLED_INTERVAL_MS,
      maxStalledCount: e.RUN_MAX_STALLED_COUNT,
      sweepIntervalMs: e.RUN_SWEEP_INTERVAL_MS,
      requeueAfterMs: e.RUN_REQUEUE_AFTER_MS,
    },
    retention: {
      maxAgeMs: e.RUN_RETENTION_MAX_AGE,
      maxCount: e.RUN_RETENTION_MAX_COUNT,
      intervalMs: e.RUN_RETENTION_INTERVAL_MS,
      toolCallMaxAgeMs: e.TOOL_CALL_RETENTION_MAX_AGE,
    },
    limits: {
      maxNodeExecutions: e.RUN_MAX_NODE_EXECUTIONS,
      runDeadlineMs: e.RUN_DEADLINE_MS,
      callTimeoutMs: e.MCP_CALL_TIMEOUT_MS,
      runConcurrency: e.RUN_CONCURRENCY,
      maxOutputBytes: e.NODE_OUTPUT_MAX_BYTES,
    },
    outbound: { allow: list(e.OUTBOUND_ALLOW), deny: list(e.OUTBOUND_DENY) },
    toolsetHealthIntervalMs: e.TOOLSET_HEALTH_INTERVAL_MS,
    toolsetRefreshMinIntervalMs: e.TOOLSET_REFRESH_MIN_INTERVAL_MS,
    stdio: { enabled: e.STDIO_TOOLSETS === 'on', commands: list(e.STDIO_COMMANDS), workDir: e.STDIO_WORK_DIR },
    logLevel: e.LOG_LEVEL,
    cacheMaxAgeMs: e.CACHE_MAX_AGE_MS,
    auth: {
      adminApiKey: e.ADMIN_API_KEY,
      rateLimitPerMinute: e.RATE_LIMIT_PER_MINUTE,
      failuresPerMinute: e.AUTH_FAILURES_PER_MINUTE,
      failureBlockSeconds: e.AUTH_FAILURE_BLOCK_SECONDS,
    },
    triggers: {
      catchUpGraceMs: e.SCHEDULE_CATCH_UP_GRACE_MS,
      hookBodyLimitBytes: e.HOOK_BODY_LIMIT_BYTES,
      hookRatePerMinute: e.HOOK_RATE_LIMIT_PER_MINUTE,
      hookToleranceSeconds: e.HOOK_TIMESTAMP_TOLERANCE_SECONDS,
      hookWaitMs: e.HOOK_WAIT_MS,
    },
  };
}

/** A key is 32 bytes, given as 64 hex characters or as base64. */
export function decodeSecretsKey(value: string): Buffer | undefined {
  const trimmed = value.trim();
  const bytes = /^[0-9a-fA-F]{64}$/.test(trimmed) ? Buffer.from(trimmed, 'hex') : Buffer.from(trimmed, 'base64');
  return bytes.length === 32 ? bytes : undefined;
}

function checkSecretsKey(name: string, value: string | undefined, required: boolean): string[] {
  if (value === undefined || value === '') {
    return required ? [`${name}: required in production (32 random bytes, hex or base64)`] : [];
  }
  const key = decodeSecretsKey(value);
  if (!key) return [`${name}: must decode to exactly 32 bytes (64 hex characters or base64)`];
  if (new Set(key).size < 8) return [`${name}: too weak (too few distinct bytes); generate it with \`openssl rand -hex 32\``];
  return [];
}

/** A command is a bare name (looked up on PATH) or an absolute path: a relative path would depend on the working directory. */
function checkStdio(enabled: boolean, commands: string[], workDir: string): string[] {
  const problems = commands
    .filter((command) => command.includes('/') && !isAbsolute(command))
    .map((command) => `STDIO_COMMANDS: "${command}" must be a command name or an absolute path`);
  if (enabled && commands.length === 0)
    problems.push('STDIO_COMMANDS: required when STDIO_TOOLSETS=on (comma list of command names or absolute paths)');
  if (!isAbsolute(workDir)) problems.push('STDIO_WORK_DIR: must be an absolute path');
  return problems;
}
