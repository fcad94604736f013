import { isIPv4, isIPv6 } from 'node:net';

// Which addresses read_url may connect to. Everything here works on parsed numbers, never on the text
// of a URL, so 2130706433, 0x7f000001, 127.1 and ::ffff:7f00:1 are all seen as 127.0.0.1.

type V4Range = [base: number, bits: number, why: string];

const V4_BLOCKED: V4Range[] = [
  [v4('0.0.0.0'), 8, 'this-network (0.0.0.0/8)'],
  [v4('10.0.0.0'), 8, 'private (10.0.0.0/8)'],
  [v4('100.64.0.0'), 10, 'carrier-grade NAT (100.64.0.0/10)'],
  [v4('127.0.0.0'), 8, 'loopback (127.0.0.0/8)'],
  [v4('169.254.0.0'), 16, 'link-local (169.254.0.0/16)'],
  [v4('172.16.0.0'), 12, 'private (172.16.0.0/12)'],
  [v4('192.0.0.0'), 24, 'IETF protocol assignments (192.0.0.0/24)'],
  [v4('192.0.2.0'), 24, 'documentation (192.0.2.0/24)'],
  [v4('192.88.99.0'), 24, '6to4 relay (192.88.99.0/24)'],
  [v4('192.168.0.0'), 16, 'private (192.168.0.0/16)'],
  [v4('198.18.0.0'), 15, 'benchmarking (198.18.0.0/15)'],
  [v4('198.51.100.0'), 24, 'documentation (198.51.100.0/24)'],
  [v4('203.0.113.0'), 24, 'documentation (203.0.113.0/24)'],
  [v4('224.0.0.0'), 4, 'multicast (224.0.0.0/4)'],
  [v4('240.0.0.0'), 4, 'reserved (240.0.0.0/4)'],
];

function v4(text: string): number {
  return text.split('.').reduce((n, part) => n * 256 + Number(part), 0);
}

function inV4(address: number, base: number, bits: number): boolean {
  const size = 2 ** (32 - bits);
  return Math.floor(address / size) === Math.floor(base / size);
}

export function classifyIPv4(text: string): string | undefined {
  const n = v4(text);
  for (const [base, bits, why] of V4_BLOCKED) if (inV4(n, base, bits)) return why;
  return undefined;
}

/** Eight 16-bit groups, with `::` expanded and a trailing dotted quad folded in. */
export function parseIPv6(text: string): number[] | undefined {
  let s = text.replace(/^\[|\]$/g, '').toLowerCase();
  const zone = s.indexOf('%');
  if (zone >= 0) s = s.slice(0, zone);
  if (!isIPv6(s)) return undefined;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (dotted) {
    const n = v4(dotted[1]!);
    s = `${s.slice(0, dotted.index)}${(Math.floor(n / 65536)).toString(16)}:${(n % 65536).toString(16)}`;
  }
  const [head, tail] = s.includes('::') ? s.split('::') : [s, undefined];
  const headParts = head ? head.split(':') : [];
  const tailParts = tail ? tail.split(':') : [];
  const missing = 8 - headParts.length - tailParts.length;
  const parts = [...headParts, ...(tail !== undefined ? Array(missing).fill('0') : []), ...tailParts];
  return parts.map((p) => Number.parseInt(p, 16));
}

const embeddedV4 = (g: number[], at: number) =>
  `${g[at]! >> 8}.${g[at]! & 255}.${g[at + 1]! >> 8}.${g[at + 1]! & 255}`;

export function classifyIPv6(text: string): string | undefined {
  const g = parseIPv6(text);
  if (!g) return 'not an IPv6 address';
  const zeroUpTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (zeroUpTo(8)) return 'unspecified (::)';
  if (zeroUpTo(7) && g[7] === 1) return 'loopback (::1)';
  // Forms that carry an IPv4 address: judged by that address.
  if (zeroUpTo(5) && g[5] === 0xffff) return viaV4('IPv4-mapped', embeddedV4(g, 6));
  if (zeroUpTo(6)) return viaV4('IPv4-compatible', embeddedV4(g, 6));
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0))
    return viaV4('NAT64', embeddedV4(g, 6));
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) return 'local-use NAT64 (64:ff9b:1::/48)';
  if (g[0] === 0x2002) return viaV4('6to4', embeddedV4(g, 1));
  if ((g[0]! & 0xfe00) === 0xfc00) return 'unique local (fc00::/7)';
  if ((g[0]! & 0xffc0) === 0xfe80) return 'link-local (fe80::/10)';
  if ((g[0]! & 0xffc0) === 0xfec0) return 'site-local (fec0::/10)';
  if ((g[0]! & 0xff00) === 0xff00) return 'multicast (ff00::/8)';
  if (g[0] === 0x2001 && g[1] === 0x0db8) return 'documentation (2001:db8::/32)';
  if (g[0] === 0x0100 && zeroUpTo(4)) return 'discard (100::/64)';
  if (g[0] === 0x2001 && g[1]! < 0x0200) return 'IETF special purpose (2001::/23)';
  return undefined;
}

function viaV4(form: string, address: string): string | undefined {
  const why = classifyIPv4(address);
  return why ? `${form} ${address}, ${why}` : undefined;
}

/** Why an IP address may not be fetched, or undefined when it may. */
export function classifyAddress(address: string): string | undefined {
  if (isIPv4(address)) return classifyIPv4(address);
  if (isIPv6(address.replace(/^\[|\]$/g, '').replace(/%.*$/, ''))) return classifyIPv6(address);
  return 'not an IP address';
}

/** Names that must never be resolved: localhost and internal-only suffixes. */
export function classifyHostname(hostname: string): string | undefined {
  const name = hostname.toLowerCase().replace(/\.+$/, '');
  if (name === 'localhost' || name.endsWith('.localhost')) return 'a localhost name';
  if (name === 'internal' || name.endsWith('.internal')) return 'an internal-only name (*.internal)';
  if (name === '') return 'an empty host name';
  return undefined;
}

/** `AGENT_ALLOW_HOSTS`: `host` or `host:port` entries, exempt from the address checks. */
export function parseAllowHosts(value: string | undefined): Set<string> {
  return new Set(
    (value ?? '')
      .split(',')
      .map((h) => h.trim().toLowerCase().replace(/\.$/, ''))
      .filter(Boolean),
  );
}

export function isAllowedHost(allow: Set<string>, url: URL): boolean {
  if (allow.size === 0) return false;
  const host = url.hostname.toLowerCase().replace(/\.+$/, '');
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  return allow.has(host) || allow.has(`${host}:${port}`);
}
