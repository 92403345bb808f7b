// `/metrics` on an address of its own (METRICS_LISTEN, default 127.0.0.1:9464; `off` disables):
// never on the public port, so the API's clients cannot read the server's internals.
import { log } from "../base/log.ts";
import { registry } from "./metrics.ts";

export const DEFAULT_METRICS_LISTEN = "127.0.0.1:9464";

/** `host:port` (IPv6 in brackets), or undefined for `off`. */
export function readMetricsListen(
  value: string | undefined,
): { hostname: string; port: number } | undefined {
  const text = (value ?? DEFAULT_METRICS_LISTEN).trim();
  if (text.toLowerCase() === "off") return undefined;
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+):(\d{1,5})$/.exec(text);
  const port = Number(match?.[2]);
  if (!match || port > 65535)
    throw new Error(`METRICS_LISTEN must be host:port or off, not "${value}"`);
  return { hostname: match[1]!.replace(/^\[|\]$/g, ""), port };
}

export interface MetricsListener {
  url: string;
  stop(): void;
}

/** Serves the registry; a taken address is a warning (another server on the host has it). */
export function listenForMetrics(value: string | undefined): MetricsListener | undefined {
  const address = readMetricsListen(value);
  if (!address) return undefined;
  try {
    const server = Bun.serve({
      ...address,
      development: false,
      fetch: async (request) => {
        if (new URL(request.url).pathname !== "/metrics")
          return new Response("Not found: the metrics are at /metrics\n", { status: 404 });
        return new Response(await registry.metrics(), {
          headers: { "content-type": registry.contentType },
        });
      },
    });
    const host = address.hostname.includes(":") ? `[${address.hostname}]` : address.hostname;
    return { url: `http://${host}:${server.port}/metrics`, stop: () => void server.stop(true) };
  } catch (error) {
    log.warn("metrics not served: their address is taken or not allowed", {
      metrics_listen: `${address.hostname}:${address.port}`,
      error: (error as { code?: string }).code ?? String(error),
    });
    return undefined;
  }
}
