import { describe, expect, it } from '@jest/globals';
import { ConfigError, loadConfig } from './app-config.js';

const base = { MONGO_URL: 'mongodb://127.0.0.1:27017/x', REDIS_URL: 'redis://127.0.0.1:6379' };
const strongKey = 'a1b2c3d4e5f60718293a4b5c6d7e8f90112233445566778899aabbccddeeff00';

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('loadConfig', () => {
  it("reads TRUST_PROXY as off, a hop count or the proxies' addresses, and refuses anything else", () => {
    expect(loadConfig({ ...base, TRUST_PROXY: 'off' }).api.trustProxy).toBe(false);
    expect(loadConfig({ ...base, TRUST_PROXY: '2' }).api.trustProxy).toBe(2);
    expect(loadConfig({ ...base, TRUST_PROXY: '10.0.0.0/8, 127.0.0.1,::1/128' }).api.trustProxy).toEqual([
      '10.0.0.0/8',
      '127.0.0.1',
      '::1/128',
    ]);
    expect(problemsOf({ ...base, TRUST_PROXY: 'proxy.example.com, 10.0.0.0/33' })).toEqual([
      'TRUST_PROXY: "off", a hop count, or addresses/CIDRs of the proxies (not proxy.example.com, 10.0.0.0/33)',
    ]);
  });

  it('applies the documented defaults', () => {
    const config = loadConfig(base);
    expect(config.api).toEqual({ host: '127.0.0.1', port: 3000, bodyLimitBytes: 1024 * 1024, trustProxy: false });
    expect(config.limits).toEqual({
      maxNodeExecutions: 500,
      runDeadlineMs: 1_800_000,
      callTimeoutMs: 300_000,
      runConcurrency: 10,
      maxOutputBytes: 262_144,
    });
    expect(config.worker).toEqual({ concurrency: 10, shutdownGraceMs: 10_000, closeDeadlineMs: 20_000 });
    expect(config.recovery).toEqual({
      lockDurationMs: 5_000,
      stalledIntervalMs: 1_500,
      maxStalledCount: 5,
      sweepIntervalMs: 2_000,
      requeueAfterMs: 4_000,
    });
  });

  it('reads retention as a duration with its unit and a count, 0 meaning no limit', () => {
    expect(loadConfig(base).retention).toEqual({
      maxAgeMs: 14 * 86_400_000,
      maxCount: 10_000,
      intervalMs: 300_000,
      toolCallMaxAgeMs: 30 * 86_400_000,
    });
    expect(loadConfig({ ...base, RUN_RETENTION_MAX_AGE: '36h', RUN_RETENTION_MAX_COUNT: '0' }).retention).toMatchObject({
      maxAgeMs: 36 * 3_600_000,
      maxCount: 0,
    });
    expect(loadConfig({ ...base, RUN_RETENTION_MAX_AGE: '0' }).retention.maxAgeMs).toBe(0);
    expect(problemsOf({ ...base, RUN_RETENTION_MAX_AGE: '14' }).join('\n')).toMatch(
      /RUN_RETENTION_MAX_AGE: must be a whole number with a unit/,
    );
    expect(problemsOf({ ...base, RUN_RETENTION_MAX_AGE: '2 weeks' }).join('\n')).toMatch(/RUN_RETENTION_MAX_AGE/);
  });

  it('reads the smallest periodic toolset refresh, 60 s by default and at least 100 ms', () => {
    expect(loadConfig(base).toolsetRefreshMinIntervalMs).toBe(60_000);
    expect(loadConfig({ ...base, TOOLSET_REFRESH_MIN_INTERVAL_MS: '5000' }).toolsetRefreshMinIntervalMs).toBe(5000);
    expect(problemsOf({ ...base, TOOLSET_REFRESH_MIN_INTERVAL_MS: '10' }).join('\n')).toMatch(/TOOLSET_REFRESH_MIN_INTERVAL_MS/);
  });

  it('names each wrong or missing variable', () => {
    const problems = problemsOf({ API_PORT: 'eighty', WORKER_CONCURRENCY: '0', REDIS_URL: 'http://x' });
    expect(problems.join('\n')).toMatch(/API_PORT/);
    expect(problems.join('\n')).toMatch(/WORKER_CONCURRENCY/);
    expect(problems.join('\n')).toMatch(/MONGO_URL/);
    expect(problems.join('\n')).toMatch(/REDIS_URL: must be a URL with scheme redis or rediss/);
  });

  it('refuses a missing, short or weak SECRETS_KEY in production', () => {
    expect(problemsOf({ ...base, NODE_ENV: 'production' })).toEqual([expect.stringMatching(/^SECRETS_KEY: required in production/)]);
    expect(problemsOf({ ...base, NODE_ENV: 'production', SECRETS_KEY: 'abcd' })).toEqual([
      expect.stringMatching(/^SECRETS_KEY: must decode to exactly 32 bytes/),
    ]);
    expect(problemsOf({ ...base, NODE_ENV: 'production', SECRETS_KEY: '00'.repeat(32) })).toEqual([
      expect.stringMatching(/^SECRETS_KEY: too weak/),
    ]);
    expect(loadConfig({ ...base, NODE_ENV: 'production', SECRETS_KEY: strongKey }).secrets.key).toBe(strongKey);
  });

  it('lets development start without a key, but not with a bad previous key', () => {
    expect(loadConfig(base).secrets.key).toBeUndefined();
    expect(problemsOf({ ...base, SECRETS_KEY_PREVIOUS: 'short' })).toEqual([expect.stringMatching(/^SECRETS_KEY_PREVIOUS/)]);
  });

  it('splits the outbound allow and deny lists', () => {
    const config = loadConfig({ ...base, OUTBOUND_ALLOW: 'a.example, 10.0.0.0/8', OUTBOUND_DENY: '' });
    expect(config.outbound).toEqual({ allow: ['a.example', '10.0.0.0/8'], deny: [] });
  });

  it('keeps stdio toolsets off by default and checks the allow-list when they are on', () => {
    expect(loadConfig(base).stdio).toMatchObject({ enabled: false, commands: [] });
    expect(loadConfig({ ...base, STDIO_TOOLSETS: 'on', STDIO_COMMANDS: 'npx, /usr/bin/uvx' }).stdio).toMatchObject({
      enabled: true,
      commands: ['npx', '/usr/bin/uvx'],
    });
    expect(problemsOf({ ...base, STDIO_TOOLSETS: 'on' })).toEqual([
      expect.stringMatching(/^STDIO_COMMANDS: required when STDIO_TOOLSETS=on/),
    ]);
    expect(problemsOf({ ...base, STDIO_COMMANDS: 'bin/npx' })).toEqual([
      expect.stringMatching(/^STDIO_COMMANDS: "bin\/npx" must be a command name or an absolute path/),
    ]);
    expect(problemsOf({ ...base, STDIO_TOOLSETS: 'yes' })).toEqual([expect.stringMatching(/^STDIO_TOOLSETS/)]);
    expect(problemsOf({ ...base, STDIO_WORK_DIR: 'relative' })).toEqual([expect.stringMatching(/^STDIO_WORK_DIR/)]);
  });

  it('keeps periodic toolset health checks off unless given an interval of at least 100 ms', () => {
    expect(loadConfig(base).toolsetHealthIntervalMs).toBe(0);
    expect(loadConfig({ ...base, TOOLSET_HEALTH_INTERVAL_MS: '60000' }).toolsetHealthIntervalMs).toBe(60_000);
    expect(problemsOf({ ...base, TOOLSET_HEALTH_INTERVAL_MS: '50' })).toEqual([expect.stringMatching(/^TOOLSET_HEALTH_INTERVAL_MS/)]);
  });

  it('takes a well-formed ADMIN_API_KEY and refuses another without echoing it', () => {
    const key = `mcpf_${'A'.repeat(43)}`;
    expect(loadConfig({ ...base, ADMIN_API_KEY: key }).auth).toEqual({
      adminApiKey: key,
      rateLimitPerMinute: 1200,
      failuresPerMinute: 20,
      failureBlockSeconds: 300,
    });
    expect(loadConfig({ ...base, ADMIN_API_KEY: '' }).auth.adminApiKey).toBeUndefined();
    const problems = problemsOf({ ...base, ADMIN_API_KEY: 'mcpf_tooShortSecret' });
    expect(problems).toEqual([expect.stringMatching(/^ADMIN_API_KEY: must be mcpf_/)]);
    expect(problems.join()).not.toContain('tooShortSecret');
  });
});
