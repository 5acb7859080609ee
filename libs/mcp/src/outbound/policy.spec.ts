import { describe, expect, it } from '@jest/globals';
import { OutboundBlockedError } from './errors.js';
import { createOutboundPolicy } from './policy.js';

const refused = (policy: ReturnType<typeof createOutboundPolicy>, url: string) => {
  try {
    policy.assertUrl(new URL(url));
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(OutboundBlockedError);
    return (error as Error).message;
  }
};

describe('createOutboundPolicy', () => {
  const defaults = createOutboundPolicy();

  it('refuses schemes other than http and https', () => {
    expect(refused(defaults, 'file:///etc/passwd')).toMatch(/only http and https/);
    expect(refused(defaults, 'ftp://example.com/')).toMatch(/only http and https/);
    expect(refused(defaults, 'gopher://127.0.0.1:6379/')).toMatch(/only http and https/);
  });

  it('refuses cloud metadata addresses in every spelling', () => {
    for (const url of [
      'http://169.254.169.254/latest/meta-data/',
      'http://2852039166/',
      'http://0xa9.254.169.254/',
      'http://[::ffff:169.254.169.254]/',
      'http://[64:ff9b::a9fe:a9fe]/',
      'http://[64:ff9b::169.254.169.254]/',
      'http://[::a9fe:a9fe]/',
      'http://[64:ff9b::6464:64c8]/',
      'http://[fd00:ec2::254]/',
      'http://100.100.100.200/',
      'http://metadata.google.internal/computeMetadata/v1/',
      'http://METADATA.google.internal./',
    ]) {
      expect(refused(defaults, url)).toMatch(/metadata/);
    }
  });

  it('allows loopback, private and public destinations by default', () => {
    for (const url of [
      'http://127.0.0.1:3001/mcp',
      'http://localhost/',
      'http://[::1]/',
      'https://10.1.2.3/',
      'https://mcp.example.com/',
    ]) {
      expect(refused(defaults, url)).toBeUndefined();
    }
  });

  it('checks resolved addresses against the same rules', () => {
    expect(() => defaults.assertAddress('evil.example', '169.254.169.254')).toThrow(/evil.example resolves to 169.254.169.254/);
    expect(() => defaults.assertAddress('ok.example', '93.184.216.34')).not.toThrow();
    expect(() => defaults.assertAddress('dns64.example', '64:ff9b::a9fe:a9fe')).toThrow(/metadata/);
    expect(() => defaults.assertAddress('dns64.example', '64:ff9b::5db8:d822')).not.toThrow();
  });

  it('locks down with OUTBOUND_DENY=private and reopens single hosts with OUTBOUND_ALLOW', () => {
    const locked = createOutboundPolicy({ deny: ['private'], allow: ['mcp.internal', '10.0.0.5', '*.corp.example'] });
    expect(refused(locked, 'http://127.0.0.1/')).toMatch(/OUTBOUND_DENY/);
    expect(refused(locked, 'http://[::1]/')).toMatch(/OUTBOUND_DENY/);
    expect(() => locked.assertAddress('localhost', '127.0.0.1')).toThrow(/OUTBOUND_DENY/);
    expect(() => locked.assertAddress('mcp.internal', '10.9.9.9')).not.toThrow();
    expect(() => locked.assertAddress('a.corp.example', '192.168.1.1')).not.toThrow();
    expect(refused(locked, 'http://10.0.0.5/')).toBeUndefined();
    expect(refused(locked, 'http://10.0.0.6/')).toMatch(/OUTBOUND_DENY/);
  });

  it('supports an allow-list-only setup and host / CIDR deny entries', () => {
    const only = createOutboundPolicy({ deny: ['*'], allow: ['mcp.example.com'] });
    expect(refused(only, 'https://mcp.example.com/mcp')).toBeUndefined();
    expect(refused(only, 'https://other.example.com/')).toMatch(/OUTBOUND_DENY/);
    const some = createOutboundPolicy({ deny: ['bad.example', '203.0.113.0/24', 'fd12::/16'] });
    expect(refused(some, 'http://bad.example/')).toMatch(/OUTBOUND_DENY/);
    expect(refused(some, 'http://203.0.113.7/')).toMatch(/OUTBOUND_DENY/);
    expect(refused(some, 'http://[fd12::1]/')).toMatch(/OUTBOUND_DENY/);
  });

  it('lets an explicit allow entry reopen a metadata address, never another scheme', () => {
    const opened = createOutboundPolicy({ allow: ['169.254.169.254', '*'] });
    expect(refused(opened, 'http://169.254.169.254/')).toBeUndefined();
    expect(refused(opened, 'file:///etc/passwd')).toMatch(/only http and https/);
  });

  it('names the variable of an entry it cannot read', () => {
    expect(() => createOutboundPolicy({ deny: ['http://x/'] })).toThrow(/OUTBOUND_DENY: "http:\/\/x\/"/);
    expect(() => createOutboundPolicy({ allow: ['10.0.0.0/40'] })).toThrow(/OUTBOUND_ALLOW/);
  });
});
