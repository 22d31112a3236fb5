// The key a per-address limit counts a client under. An IPv6 client is
// usually given a whole network (a /64, often a /56 or /48), so keying on its
// full address would give it 2^64 separate budgets: it is keyed by its network
// prefix instead. An IPv4-mapped IPv6 address (::ffff:1.2.3.4, how a dual-stack
// socket sees an IPv4 client) is the IPv4 client it names.
import { isIPv4, isIPv6 } from 'node:net';

export const DEFAULT_IPV6_PREFIX_LENGTH = 64;

/** The eight 16-bit groups of a valid IPv6 address (a trailing dotted IPv4 part is two groups). */
function groupsOf(address: string): number[] {
  const parse = (part: string): number[] =>
    part === ''
      ? []
      : part.split(':').flatMap((g) => {
          if (!g.includes('.')) return [Number.parseInt(g, 16)];
          const [a, b, c, d] = g.split('.').map(Number) as [number, number, number, number];
          return [(a << 8) | b, (c << 8) | d];
        });
  const gap = address.indexOf('::');
  if (gap === -1) return parse(address);
  const head = parse(address.slice(0, gap));
  const tail = parse(address.slice(gap + 2));
  return [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail];
}

/** RFC 5952's text form: lower case, no leading zeros, the longest run of two or more zero groups as "::". */
function formatGroups(groups: number[]): string {
  let best = { at: -1, length: 1 };
  for (let i = 0; i < groups.length; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < groups.length && groups[j] === 0) j++;
    if (j - i > best.length) best = { at: i, length: j - i };
    i = j;
  }
  const hex = (gs: number[]) => gs.map((g) => g.toString(16)).join(':');
  if (best.at === -1) return hex(groups);
  return `${hex(groups.slice(0, best.at))}::${hex(groups.slice(best.at + best.length))}`;
}

/**
 * The client's key for per-address limits: an IPv4 address as it is, an
 * IPv4-mapped IPv6 address as its IPv4 address, any other IPv6 address as
 * its network of `ipv6PrefixLength` bits ("2001:db8:1:2::/64"). Anything
 * else (no address at all) is kept as it is.
 */
export function clientAddressKey(address: string, ipv6PrefixLength: number): string {
  if (isIPv4(address)) return address;
  // A link-local address may carry its interface ("fe80::1%eth0"): the same client on any.
  const bare = address.split('%')[0] ?? '';
  if (!isIPv6(bare)) return address;
  const groups = groupsOf(bare.toLowerCase());
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    const [hi = 0, lo = 0] = groups.slice(6);
    return `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
  }
  const masked = groups.map((g, i) => {
    const bits = Math.min(16, Math.max(0, ipv6PrefixLength - 16 * i));
    return g & ((0xffff << (16 - bits)) & 0xffff);
  });
  return `${formatGroups(masked)}/${ipv6PrefixLength}`;
}
