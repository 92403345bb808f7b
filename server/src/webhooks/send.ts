// POSTs one webhook to a checked target (targets.ts) and reports the answer's status code. It
// connects only to the addresses the check allowed: node:http(s) asks its `lookup` for the host's
// address, and ours answers with those, while the URL's name still goes out as Host and as the TLS
// server name (SNI and certificate check). Redirects are not followed: a 3xx is an answer like
// any other that is not 2xx.
import type { LookupAddress } from "node:dns";
import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import type { Target } from "./targets.ts";

/** The code of the error a send that got no answer in time rejects with. */
export const TIMED_OUT = "ETIMEDOUT";

/** The lookup of a request to `target`: its checked addresses, whatever name is asked for. */
function checkedLookup(target: Target): LookupFunction {
  return (_hostname, options, callback) => {
    const addresses: LookupAddress[] = target.addresses.map((entry) => ({
      address: entry.address,
      family: entry.family,
    }));
    if (options.all) callback(null, addresses);
    else callback(null, addresses[0]!.address, addresses[0]!.family);
  };
}

/** The status code the target answered within `timeoutMs`; rejects on a network error or timeout. */
export function postTo(
  target: Target,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const client = target.url.protocol === "https:" ? https : http;
    const request = client.request(
      target.url,
      {
        method: "POST",
        headers: { ...headers, "content-length": String(Buffer.byteLength(body)) },
        lookup: checkedLookup(target),
      },
      (response) => {
        resolve(response.statusCode ?? 0);
        // The body is not needed; reading it to its end lets the connection serve the next delivery.
        response.resume();
        response.on("end", () => clearTimeout(timer));
      },
    );
    const timer = setTimeout(
      () =>
        request.destroy(
          Object.assign(new Error(`no answer within ${timeoutMs / 1000} s`), { code: TIMED_OUT }),
        ),
      timeoutMs,
    );
    request.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    request.end(body);
  });
}
