// Where the CLI finds its API connection: flags, then ERP_BASE_URL/ERP_TOKEN, then the file `erp login` wrote.
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { UsageError } from "./usage-error.ts";

/** What every API command needs. */
export interface Connection {
  baseUrl: string;
  token: string;
}

/** The global flags that can carry a connection. */
export interface ConnectionFlags {
  baseUrl?: string | undefined;
  token?: string | undefined;
  profile?: string | undefined;
}

/** What `bun run start` serves when nothing says otherwise. */
export const DEFAULT_BASE_URL = "http://localhost:3000";

/** `$ERP_CONFIG`, else `$XDG_CONFIG_HOME/erp/config.json`, else `~/.config/erp/config.json`. */
export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.ERP_CONFIG) return path.resolve(env.ERP_CONFIG);
  const base = env.XDG_CONFIG_HOME || path.join(os.homedir(), ".config");
  return path.join(base, "erp", "config.json");
}

/** The profile flags and the environment select (`--profile`, else ERP_PROFILE, else `default`). */
export const profileName = (
  flags: { profile?: string | undefined },
  env: NodeJS.ProcessEnv = process.env,
): string => flags.profile || env.ERP_PROFILE || "default";

type SavedProfile = { base_url?: unknown; token?: unknown; listen_secret?: unknown };
type SavedFile = { profiles: Record<string, SavedProfile> };

/** The whole file, every profile; the one-login format of earlier versions is the `default` profile. */
function readSaved(file: string): SavedFile {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { profiles: {} };
    throw new UsageError(`cannot read ${file}: ${(error as Error).message}`);
  }
  let saved: { profiles?: unknown; base_url?: unknown; token?: unknown };
  try {
    saved = JSON.parse(text) as typeof saved;
  } catch {
    throw new UsageError(`${file} is not valid JSON: run \`erp login\` again`);
  }
  if (typeof saved.profiles === "object" && saved.profiles !== null)
    return { profiles: saved.profiles as SavedFile["profiles"] };
  return {
    profiles:
      saved.token === undefined
        ? {}
        : { default: { base_url: saved.base_url, token: saved.token } },
  };
}

/** The saved connection of a profile; empty when `erp login` has not saved it. */
export function readConfig(file: string = configPath(), profile = "default"): Partial<Connection> {
  const saved = readSaved(file).profiles[profile] ?? {};
  return {
    ...(typeof saved.base_url === "string" ? { baseUrl: saved.base_url } : {}),
    ...(typeof saved.token === "string" ? { token: saved.token } : {}),
  };
}

/** The profiles with a login saved in the file. */
export const savedProfiles = (file: string = configPath()): string[] =>
  Object.entries(readSaved(file).profiles)
    .filter(([, saved]) => typeof saved.token === "string")
    .map(([name]) => name);

function writeSaved(saved: SavedFile, file: string): void {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(saved, null, 2)}\n`, { mode: 0o600 });
  // The mode given to writeFileSync is filtered by the umask; the token must never be group-readable.
  chmodSync(temp, 0o600);
  renameSync(temp, file);
}

/** Saves one profile's connection readable by its owner only (0600, directory 0700), atomically. */
export function writeConfig(
  connection: Connection,
  file: string = configPath(),
  profile = "default",
): void {
  const saved = readSaved(file);
  saved.profiles[profile] = {
    ...saved.profiles[profile],
    base_url: connection.baseUrl,
    token: connection.token,
  };
  writeSaved(saved, file);
}

/**
 * The signing secret `erp listen` signs with for this profile: made on first use and saved with
 * the profile, so a receiver configured with it keeps verifying across runs (like `stripe listen`).
 */
export function listenSecret(file: string, profile: string, make: () => string): string {
  const saved = readSaved(file);
  const existing = saved.profiles[profile]?.listen_secret;
  if (typeof existing === "string") return existing;
  const secret = make();
  saved.profiles[profile] = { ...saved.profiles[profile], listen_secret: secret };
  writeSaved(saved, file);
  return secret;
}

/** Forgets one profile; false when it was not saved. */
export function removeProfile(file: string, profile: string): boolean {
  const saved = readSaved(file);
  if (!(profile in saved.profiles)) return false;
  delete saved.profiles[profile];
  writeSaved(saved, file);
  return true;
}

/** Where each part of the connection came from, for `erp auth status`. */
export interface ResolvedConnection extends Connection {
  baseUrlFrom: string;
  tokenFrom: string;
  profile: string;
}

/** Each setting on its own: a flag wins over the environment, which wins over the saved profile. */
export function resolveConnection(
  flags: ConnectionFlags,
  env: NodeJS.ProcessEnv = process.env,
): ResolvedConnection {
  const profile = profileName(flags, env);
  const file = configPath(env);
  const saved = flags.token && flags.baseUrl ? {} : readConfig(file, profile);
  const savedFrom = `${file} (profile ${profile})`;
  const [baseUrl, baseUrlFrom] = flags.baseUrl
    ? [flags.baseUrl, "--base-url"]
    : env.ERP_BASE_URL
      ? [env.ERP_BASE_URL, "ERP_BASE_URL"]
      : saved.baseUrl
        ? [saved.baseUrl, savedFrom]
        : [DEFAULT_BASE_URL, "the default"];
  const [token, tokenFrom] = flags.token
    ? [flags.token, "--token"]
    : env.ERP_TOKEN
      ? [env.ERP_TOKEN, "ERP_TOKEN"]
      : [saved.token, savedFrom];
  if (!token)
    throw new UsageError(
      `no API token: pass --token, set ERP_TOKEN, or run \`erp ` +
        `login${profile === "default" ? "" : ` --profile ${profile}`}\``,
    );
  return { baseUrl: checkBaseUrl(baseUrl), token, baseUrlFrom, tokenFrom, profile };
}

/**
 * An http(s) URL without a trailing slash. A bare host is accepted as `curl` and `gh` do: http for
 * this machine (localhost, 127.x, [::1]), https for anything else.
 */
export function checkBaseUrl(value: string): string {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(value)
    ? value
    : /^(localhost|127\.[0-9.]+|\[::1\])(:|\/|$)/i.test(value)
      ? `http://${value}`
      : `https://${value}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new UsageError(
      `base URL ${JSON.stringify(value)} is not a URL (e.g. https://erp.example.com)`,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new UsageError(`base URL must be http or https, not ${url.protocol}`);
  return withScheme.replace(/\/+$/, "");
}
