// Which IP addresses a webhook may reach without WEBHOOK_ALLOW_PRIVATE: public unicast ones only.
// ipaddr.js classifies by the IANA special-purpose registries (private, loopback, link-local,
// shared 100.64/10, 192.0.0.0/24, documentation, benchmarking, multicast, reserved, ...). An IPv6
// address that carries an IPv4 address (mapped, compatible, NAT64, 6to4, Teredo) is judged by the
// IPv4 addresses it leads to, so no spelling of a private address passes for public.
import ipaddr from "ipaddr.js";

const NAT64_WELL_KNOWN = ipaddr.IPv6.parseCIDR("64:ff9b::/96");

function ipv4At(bytes: number[], offset: number, mask = 0): ipaddr.IPv4 {
  return new ipaddr.IPv4(bytes.slice(offset, offset + 4).map((byte) => byte ^ mask));
}

/** The IPv4 addresses an IPv6 address leads to, in the spellings that embed one. */
function embeddedIpv4(address: ipaddr.IPv6): ipaddr.IPv4[] {
  const bytes = address.toByteArray();
  const range = address.range();
  // ::ffff:a.b.c.d (mapped), ::ffff:0:a.b.c.d (RFC 6145), ::a.b.c.d (compatible, deprecated).
  if (
    range === "ipv4Mapped" ||
    range === "rfc6145" ||
    bytes.slice(0, 12).every((byte) => byte === 0)
  )
    return [ipv4At(bytes, 12)];
  if (address.match(NAT64_WELL_KNOWN)) return [ipv4At(bytes, 12)];
  // 2002:AABB:CCDD::/48 relays to AA.BB.CC.DD.
  if (range === "6to4") return [ipv4At(bytes, 2)];
  // 2001:0:<server>:<flags>:<port>:<client XOR ffffffff>: the server and the client's address.
  if (range === "teredo") return [ipv4At(bytes, 4), ipv4At(bytes, 12, 0xff)];
  return [];
}

const isPublicIpv4 = (address: ipaddr.IPv4): boolean => address.range() === "unicast";

/** True for an address a webhook may reach when private targets are not allowed. */
export function isPublicAddress(text: string): boolean {
  if (!ipaddr.isValid(text)) return false;
  const address = ipaddr.parse(text);
  if (address.kind() === "ipv4") return isPublicIpv4(address as ipaddr.IPv4);
  const embedded = embeddedIpv4(address as ipaddr.IPv6);
  return embedded.length > 0 ? embedded.every(isPublicIpv4) : address.range() === "unicast";
}
