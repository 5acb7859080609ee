/**
 * Where the service may connect when a user hands it a URL (SSRF defence). Only http(s); never
 * the cloud metadata endpoints (they sit in link-local space, plus Alibaba's 100.100.100.200);
 * loopback and private networks stay reachable by default because self-hosted MCP servers
 * usually live there. `deny` entries add refusals; `allow` entries win over every refusal except
 * the scheme check. Entries: `*`, `private`, hostnames (`mcp.example.com`, `*.example.com`),
 * IP addresses and CIDRs (`10.0.0.0/8`, `fd00::/8`).
 */
import { BlockList, isIP } from 'node:net';
import { OutboundBlockedError } from './errors.js';

export interface OutboundPolicyOptions {
  allow?: readonly string[];
  deny?: readonly string[];
}

export interface OutboundPolicy {
  /** Throws OutboundBlockedError for a URL that must not be fetched (scheme, hostname, IP literal). */
  assertUrl(url: URL): void;
  /** Throws OutboundBlockedError when `hostname` resolved to an address that must not be reached. */
  assertAddress(hostname: string, address: string): void;
}

const ALLOWED_SCHEMES = new Set(['http:', 'https:']);

/** Link-local (every cloud's metadata service lives there) and the metadata addresses outside it. */
const METADATA_RANGES = ['169.254.0.0/16', 'fe80::/10', 'fd00:ec2::254/128', '100.100.100.200/32'];
const METADATA_HOSTS = ['metadata.google.internal', 'metadata.goog'];

/** `private`: everything that is not the public internet. */
const PRIVATE_RANGES = [
  '0.0.0.0/8',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.168.0.0/16',
  '::/128',
  '::1/128',
  'fc00::/7',
  'fe80::/10',
];

interface RuleSet {
  everything: boolean;
  addresses: BlockList;
  exactHosts: Set<string>;
  /** `*.example.com` → `.example.com` */
  hostSuffixes: string[];
}

function addRange(list: BlockList, entry: string, source: string): void {
  const [address, prefixText] = entry.split('/');
  const family = isIP(address);
  const prefix = prefixText === undefined ? undefined : Number(prefixText);
  const maxPrefix = family === 4 ? 32 : 128;
  if (family === 0 || (prefix !== undefined && !(Number.isInteger(prefix) && prefix >= 0 && prefix <= maxPrefix))) {
    throw new Error(`${source}: "${entry}" is not a valid IP address or CIDR`);
  }
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (prefix === undefined) list.addAddress(address, type);
  else list.addSubnet(address, prefix, type);
}

function ruleSet(entries: readonly string[], source: string): RuleSet {
  const rules: RuleSet = { everything: false, addresses: new BlockList(), exactHosts: new Set(), hostSuffixes: [] };
  for (const raw of entries) {
    const entry = raw
      .trim()
      .toLowerCase()
      .replace(/^\[(.*)\]$/, '$1');
    if (entry === '') continue;
    if (entry === '*') rules.everything = true;
    else if (entry === 'private') PRIVATE_RANGES.forEach((range) => addRange(rules.addresses, range, source));
    else if (entry.includes('/') || isIP(entry)) addRange(rules.addresses, entry, source);
    else if (/^\*\.[a-z0-9.-]+$/.test(entry)) rules.hostSuffixes.push(entry.slice(1));
    else if (/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*\.?$/.test(entry))
      rules.exactHosts.add(entry.replace(/\.$/, ''));
    else throw new Error(`${source}: "${raw}" is not a hostname, IP address, CIDR, "private" or "*"`);
  }
  return rules;
}

function normalizeHost(hostname: string): string {
  return hostname
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '');
}

function matchesHost(rules: RuleSet, host: string): boolean {
  return rules.everything || rules.exactHosts.has(host) || rules.hostSuffixes.some((suffix) => host.endsWith(suffix));
}

function matchesAddress(list: BlockList, address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  if (list.check(address, family === 4 ? 'ipv4' : 'ipv6')) return true;
  const embedded = family === 6 ? embeddedIpv4(address) : undefined;
  return embedded !== undefined && list.check(embedded, 'ipv4');
}

/** The 8 hextets of an IPv6 address (a dotted IPv4 tail becomes the last two). */
function hextetsOf(address: string): number[] {
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(address);
  const text = dotted
    ? address.slice(0, dotted.index) + [(+dotted[1] << 8) | +dotted[2], (+dotted[3] << 8) | +dotted[4]].map((n) => n.toString(16)).join(':')
    : address;
  const [head, tail] = text.split('::');
  const parse = (part: string | undefined) => (part ? part.split(':').map((hextet) => parseInt(hextet, 16)) : []);
  const front = parse(head);
  const back = parse(tail);
  return tail === undefined ? front : [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
}

/**
 * The IPv4 address carried in the last 32 bits of the IPv6 forms that reach it: NAT64's well-known
 * prefix 64:ff9b::/96 (a DNS64 resolver answers `64:ff9b::a9fe:a9fe` for 169.254.169.254) and the
 * deprecated IPv4-compatible ::/96 (IPv4-mapped ::ffff:0:0/96 is matched by BlockList itself).
 */
function embeddedIpv4(address: string): string | undefined {
  const hextets = hextetsOf(address.toLowerCase());
  if (hextets.length !== 8) return undefined;
  const prefix = hextets.slice(0, 6);
  const nat64 = prefix[0] === 0x64 && prefix[1] === 0xff9b && prefix.slice(2).every((hextet) => hextet === 0);
  const compatible = prefix.every((hextet) => hextet === 0);
  if (!nat64 && !compatible) return undefined;
  return [hextets[6] >> 8, hextets[6] & 0xff, hextets[7] >> 8, hextets[7] & 0xff].join('.');
}

export function createOutboundPolicy(options: OutboundPolicyOptions = {}): OutboundPolicy {
  const allow = ruleSet(options.allow ?? [], 'OUTBOUND_ALLOW');
  const deny = ruleSet(options.deny ?? [], 'OUTBOUND_DENY');
  const metadata = ruleSet([...METADATA_RANGES, ...METADATA_HOSTS], 'built-in metadata list');

  const refusal = (host: string, address?: string): string | undefined => {
    if (matchesHost(allow, host) || (address !== undefined && matchesAddress(allow.addresses, address))) return undefined;
    if (matchesHost(deny, host) || (address !== undefined && matchesAddress(deny.addresses, address))) return 'denied by OUTBOUND_DENY';
    if (matchesHost(metadata, host) || (address !== undefined && matchesAddress(metadata.addresses, address))) {
      return 'a cloud metadata / link-local address';
    }
    return undefined;
  };

  return {
    assertUrl(url) {
      if (!ALLOWED_SCHEMES.has(url.protocol)) {
        throw new OutboundBlockedError(`only http and https URLs may be fetched, not ${url.protocol.replace(/:$/, '')}:`);
      }
      const host = normalizeHost(url.hostname);
      const reason = refusal(host, isIP(host) ? host : undefined);
      if (reason) throw new OutboundBlockedError(`${host} is ${reason}`);
    },
    assertAddress(hostname, address) {
      const host = normalizeHost(hostname);
      const reason = refusal(host, address);
      if (reason) throw new OutboundBlockedError(`${host} resolves to ${address}, ${reason}`);
    },
  };
}
