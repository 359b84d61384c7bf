import { isIP } from "node:net";

/**
 * Which IP addresses the web tools refuse to reach, and why. An agent's model chooses the URLs,
 * and a page it reads may ask it to fetch `http://169.254.169.254/` or the admin port of a
 * database next to the server: anything not on the public internet is refused unless the
 * operator allows private addresses. The check is made on the address a connection really goes
 * to (see `guarded-lookup.ts`), so a public name that resolves to 127.0.0.1 is refused too.
 */

interface Range {
  readonly bytes: Uint8Array;
  readonly prefix: number;
  readonly reason: string;
}

interface Tables {
  readonly embedding: readonly { range: Range; v4At: number; what: string }[];
  readonly metadata: readonly Range[];
  readonly ranges: readonly Range[];
}

let tables: Tables | undefined;

/**
 * Built on first use: parsing them compiles Node's IPv6 pattern (about 14 ms), which a server
 * whose agents never browse should not pay for at start-up.
 */
function refusedRanges(): Tables {
  tables ??= {
    embedding: embeddingPrefixes(),
    metadata: metadataAddresses(),
    ranges: nonPublicRanges(),
  };
  return tables;
}

/** IPv6 prefixes that carry an IPv4 address in their low 32 bits (or bits 16-48 for 6to4). */
const embeddingPrefixes = (): Tables["embedding"] => [
  { range: range("::ffff:0:0/96", ""), v4At: 12, what: "IPv4-mapped" },
  { range: range("64:ff9b::/96", ""), v4At: 12, what: "NAT64" },
  { range: range("2002::/16", ""), v4At: 2, what: "6to4" },
];

/** Exact addresses of cloud metadata services, named before the range they fall in. */
const metadataAddresses = (): readonly Range[] =>
  [
    "169.254.169.254/32", // AWS, GCP, Azure, OpenStack and most others
    "169.254.170.2/32", // AWS ECS task credentials
    "100.100.100.200/32", // Alibaba Cloud
    "fd00:ec2::254/128", // AWS over IPv6
  ].map((cidr) => range(cidr, "a cloud metadata address"));

const nonPublicRanges = (): readonly Range[] => [
  range("0.0.0.0/8", "an unspecified ('this network') address"),
  range("10.0.0.0/8", "a private address (RFC 1918)"),
  range("100.64.0.0/10", "a carrier-grade NAT address (RFC 6598)"),
  range("127.0.0.0/8", "a loopback address"),
  range("169.254.0.0/16", "a link-local address"),
  range("172.16.0.0/12", "a private address (RFC 1918)"),
  range("192.0.0.0/24", "an IETF protocol address (RFC 6890)"),
  range("192.168.0.0/16", "a private address (RFC 1918)"),
  range("198.18.0.0/15", "a benchmarking address (RFC 2544)"),
  range("224.0.0.0/4", "a multicast address"),
  range("240.0.0.0/4", "a reserved or broadcast address"),
  range("::/128", "an unspecified address"),
  range("::1/128", "a loopback address"),
  // IPv4-compatible addresses (deprecated) would reach IPv4 hosts by odd routes; none is public.
  range("::/96", "an IPv4-compatible address (deprecated)"),
  range("64:ff9b:1::/48", "a local-use NAT64 address"),
  range("100::/64", "a discard-only address"),
  range("fc00::/7", "a unique local address (private IPv6)"),
  range("fe80::/10", "a link-local address"),
  range("fec0::/10", "a site-local address (deprecated)"),
  range("ff00::/8", "a multicast address"),
];

/**
 * Why `address` (an IPv4 or IPv6 literal, without brackets) may not be reached, or `undefined`
 * if it is a public address. Text that is not an IP address is refused, never let through.
 */
export function refusedAddressReason(address: string): string | undefined {
  const bytes = parseIp(address);
  if (!bytes) return "not an IP address";
  return reasonFor(bytes);
}

function reasonFor(bytes: Uint8Array): string | undefined {
  const { embedding: prefixes, metadata: addresses, ranges } = refusedRanges();
  const metadata = addresses.find((candidate) => matches(bytes, candidate));
  if (metadata) return metadata.reason;
  for (const { range: embedding, v4At, what } of prefixes) {
    if (!matches(bytes, embedding)) continue;
    const v4 = bytes.slice(v4At, v4At + 4);
    const inner = reasonFor(v4);
    return inner && `${what} form of ${inner} (${formatIpv4(v4)})`;
  }
  return ranges.find((candidate) => matches(bytes, candidate))?.reason;
}

function matches(bytes: Uint8Array, candidate: Range): boolean {
  if (bytes.length !== candidate.bytes.length) return false;
  for (let bit = 0; bit < candidate.prefix; bit += 8) {
    const width = Math.min(8, candidate.prefix - bit);
    const mask = (0xff << (8 - width)) & 0xff;
    const i = bit / 8;
    if (((bytes[i] ?? 0) & mask) !== ((candidate.bytes[i] ?? 0) & mask)) return false;
  }
  return true;
}

function range(cidr: string, reason: string): Range {
  const parsed = parseCidr(cidr);
  if (!parsed) throw new Error(`bad range ${cidr}`);
  return { ...parsed, reason };
}

/** `10.1.0.0/16`, `fd00::/8` or a single address (a full-length prefix); null if malformed. */
export function parseCidr(cidr: string): { bytes: Uint8Array; prefix: number } | null {
  const [address = "", prefixText, extra] = cidr.split("/");
  const bytes = parseIp(address);
  if (!bytes || extra !== undefined || address.includes("%")) return null;
  const prefix = prefixText === undefined ? bytes.length * 8 : Number(prefixText);
  if (!/^\d+$/.test(prefixText ?? "0") || prefix > bytes.length * 8) return null;
  return { bytes, prefix };
}

/**
 * Whom the web tools may reach: every public address; private ones only if the operator allows
 * them all or lists their networks. Returns why `address` is refused, or `undefined`.
 */
export function addressPolicy(
  allowPrivate: boolean,
  allowedNetworks: readonly string[],
): (address: string) => string | undefined {
  const allowed = allowedNetworks.map((cidr) => range(cidr, "allowed"));
  return (address) => {
    if (allowPrivate) return undefined;
    const bytes = parseIp(address);
    if (!bytes) return "not an IP address";
    const v4 = embeddedIpv4(bytes);
    if (allowed.some((net) => matches(bytes, net) || (v4 !== null && matches(v4, net))))
      return undefined;
    return reasonFor(bytes);
  };
}

/** The IPv4 address inside an IPv4-mapped, NAT64 or 6to4 address, else null. */
function embeddedIpv4(bytes: Uint8Array): Uint8Array | null {
  const found = refusedRanges().embedding.find(({ range: embedding }) => matches(bytes, embedding));
  return found ? bytes.slice(found.v4At, found.v4At + 4) : null;
}

/** The 4 or 16 bytes of an IP literal (a zone such as `%eth0` is ignored); null if not one. */
export function parseIp(text: string): Uint8Array | null {
  const address = text.replace(/%.*$/, "");
  const family = isIP(address);
  if (family === 4) return Uint8Array.from(address.split(".").map(Number));
  if (family === 6) return parseIpv6(address);
  return null;
}

function parseIpv6(address: string): Uint8Array {
  const bytes = new Uint8Array(16);
  let text = address;
  // A trailing dotted quad (`::ffff:127.0.0.1`) becomes the last two groups.
  const quad = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (quad?.[1]) {
    const [a = 0, b = 0, c = 0, d = 0] = quad[1].split(".").map(Number);
    text = `${text.slice(0, quad.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = "", tail] = text.split("::");
  const groupsOf = (part: string) => (part === "" ? [] : part.split(":"));
  const front = groupsOf(head);
  const back = tail === undefined ? [] : groupsOf(tail);
  const groups = [...front, ...Array(8 - front.length - back.length).fill("0"), ...back];
  groups.forEach((group, i) => {
    const value = Number.parseInt(group, 16);
    bytes[i * 2] = value >> 8;
    bytes[i * 2 + 1] = value & 0xff;
  });
  return bytes;
}

function formatIpv4(bytes: Uint8Array): string {
  return bytes.join(".");
}
