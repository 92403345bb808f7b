// The host names the OpenAPI document's examples use, resolvable on a machine without public DNS:
// a hosts file for the server's webhook resolver (ERP_WEBHOOK_HOSTS_FILE) that sends them to
// loopback, for servers that also allow private targets (WEBHOOK_ALLOW_PRIVATE=1).
import { writeFileSync } from "node:fs";
import path from "node:path";
import { tempDir } from "./cli.ts";

export function documentedHostsEnv(): Record<string, string> {
  const file = path.join(tempDir(), "hosts");
  writeFileSync(file, "127.0.0.1 example.com\n");
  return { WEBHOOK_ALLOW_PRIVATE: "1", ERP_WEBHOOK_HOSTS_FILE: file };
}
