import { describe, expect, it } from '@jest/globals';
import { stdioRefusal } from './stdio-policy.js';

const policy = (enabled: boolean, commands: string[]) => ({ enabled, commands, workDir: '/tmp/x' });

describe('stdioRefusal', () => {
  it('refuses everything while stdio toolsets are off, even a listed command', () => {
    expect(stdioRefusal(policy(false, ['npx']), 'npx')?.code).toBe('STDIO_DISABLED');
  });

  it('allows a command written exactly as listed, by name or absolute path', () => {
    expect(stdioRefusal(policy(true, ['npx', '/usr/local/bin/mcp-git']), 'npx')).toBeUndefined();
    expect(stdioRefusal(policy(true, ['npx', '/usr/local/bin/mcp-git']), '/usr/local/bin/mcp-git')).toBeUndefined();
  });

  it('refuses another spelling of a listed command', () => {
    for (const command of ['/usr/bin/npx', './npx', 'npx ', 'NPX', 'mcp-git', '/tmp/npx']) {
      expect(stdioRefusal(policy(true, ['npx', '/usr/local/bin/mcp-git']), command)?.code).toBe('STDIO_COMMAND_NOT_ALLOWED');
    }
  });
});
