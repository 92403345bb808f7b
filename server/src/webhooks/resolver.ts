// Resolves a webhook host to every address it has, at the moment of each attempt. A name listed in
// the hosts-format file named by ERP_WEBHOOK_HOSTS_FILE (development and tests, read on every call
// so that a change of answer between registration and delivery can be shown) resolves from there;
// any other name from the system resolver (getaddrinfo: /etc/hosts, then DNS).
import { lookup } from "node:dns/promises";
import { readFile } from "node:fs/promises";
import { isIP } from "node:net";

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

async function fromHostsFile(host: string): Promise<string[]> {
  const file = process.env.ERP_WEBHOOK_HOSTS_FILE;
  if (!file) return [];
  const lines = (await readFile(file, "utf8"))
    .split("\n")
    .map((line) => line.replace(/#.*/, "").trim().split(/\s+/));
  return lines
    .filter(
      ([address, ...names]) =>
        address && isIP(address) && names.some((name) => name.toLowerCase() === host),
    )
    .map(([address]) => address!);
}

/** Every address of `host` (a name, or an IP literal without brackets); throws when it has none. */
export async function resolveHost(host: string): Promise<ResolvedAddress[]> {
  const literal = isIP(host);
  if (literal) return [{ address: host, family: literal as 4 | 6 }];
  const listed = await fromHostsFile(host.toLowerCase());
  if (listed.length > 0)
    return listed.map((address) => ({ address, family: isIP(address) as 4 | 6 }));
  return (await lookup(host, { all: true, verbatim: true })).map((entry) => ({
    address: entry.address,
    family: entry.family as 4 | 6,
  }));
}
