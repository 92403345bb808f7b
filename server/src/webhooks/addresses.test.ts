// The address check of webhook targets: every spelling of a private address is refused, public ones pass.
import { expect, test } from "bun:test";
import { isPublicAddress } from "./addresses.ts";

test("private, loopback, link-local and special-purpose addresses are refused in every spelling", () => {
  const refused = [
    "127.0.0.1",
    "10.0.0.1",
    "172.16.0.1",
    "192.168.1.1",
    "192.0.0.1",
    "100.64.0.1",
    "169.254.169.254",
    "0.0.0.0",
    "255.255.255.255",
    "224.0.0.1",
    "198.18.0.1",
    "192.0.2.1",
    "203.0.113.1",
    "240.0.0.1",
    "192.31.196.1",
    "192.52.193.1",
    "192.88.99.1",
    "::1",
    "::",
    "fe80::1",
    "fc00::1",
    "fd12::1",
    "ff02::1",
    "fec0::1",
    "2001:db8::1",
    "100::1",
    "3fff::1",
    "5f00::1",
    // IPv4-mapped, RFC 6145 translated, IPv4-compatible.
    "::ffff:7f00:1",
    "::ffff:127.0.0.1",
    "::ffff:a9fe:a9fe",
    "::ffff:10.0.0.1",
    "::ffff:0:7f00:1",
    "::127.0.0.1",
    "::7f00:1",
    // NAT64 (well-known and local-use prefixes), 6to4, Teredo (client 127.0.0.1; server 10.0.0.1).
    "64:ff9b::7f00:1",
    "64:ff9b::10.0.0.1",
    "64:ff9b:1::5db8:d70e",
    "2002:7f00:1::",
    "2002:a00:1::1",
    "2001:0:4136:e378:8000:63bf:80ff:fffe",
    "2001:0:a00:1:8000:63bf:a247:28f1",
    "not-an-address",
  ];
  expect(refused.filter(isPublicAddress)).toEqual([]);
});

test("public unicast addresses pass, also when an IPv6 spelling carries a public IPv4 address", () => {
  const allowed = [
    "93.184.215.14",
    "8.8.8.8",
    "2606:4700:4700::1111",
    "2a00:1450:4001:80b::200e",
    "::ffff:93.184.215.14",
    "64:ff9b::5db8:d70e",
    "2002:5db8:d70e::1",
  ];
  expect(allowed.filter((address) => !isPublicAddress(address))).toEqual([]);
});
