// Environment → typed configuration, read once at start.
export interface Config {
  port: number;
  /** The interface to listen on; 0.0.0.0 (every interface) unless HOST says otherwise. */
  host: string;
  databaseUrl: string;
  logLevel: "debug" | "info" | "warn" | "error";
}

function readLogLevel(value: string | undefined): Config["logLevel"] {
  const level = (value ?? "info").toLowerCase();
  if (level === "debug" || level === "info" || level === "warn" || level === "error") return level;
  throw new Error(`LOG_LEVEL must be debug, info, warn or error, not "${value}"`);
}

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const databaseUrl = env.DATABASE_URL;
  if (!databaseUrl) throw new Error("DATABASE_URL is not set (bun run start sets it for you)");
  const port = Number(env.PORT ?? 3000);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`PORT must be a port number, not "${env.PORT}"`);
  return { port, host: env.HOST || "0.0.0.0", databaseUrl, logLevel: readLogLevel(env.LOG_LEVEL) };
}

/** A duration knob from the environment (tests shorten them), in milliseconds. */
export function envMilliseconds(
  name: string,
  fallback: number,
  env: Record<string, string | undefined> = process.env,
): number {
  const value = env[name];
  if (value === undefined || value === "") return fallback;
  const ms = Number(value);
  if (!Number.isInteger(ms) || ms < 10 || ms > 86_400_000)
    throw new Error(`${name} must be a whole number of milliseconds (10…86400000), not "${value}"`);
  return ms;
}
