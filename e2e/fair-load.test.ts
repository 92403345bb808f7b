// A company's load stays its own (docs/limits.md): its refused requests are given back to its rate
// limit only up to its rate a minute, so a stream of refused batches meets 429 like any other; and
// batches take turns, so two companies flooding batches on every connection they have keep a
// third company's reads within twice their idle latency. Loopback, bounded counts and time; the
// latency is compared in alternating rounds (the machine's other load falls on both sides) and the
// best of three measurements counts, as noise from elsewhere only ever adds latency.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { newCompany } from "@erp/testing/company";
import { freshRateWindow } from "@erp/testing/rate-window";
import { useServer } from "@erp/testing/suite";

setDefaultTimeout(180_000);

const suite = useServer();

/** The value below which `share` of the samples lie. */
const percentile = (samples: readonly number[], share: number): number =>
  [...samples].sort((a, b) => a - b)[Math.floor(share * (samples.length - 1))]!;

describe("refused requests", () => {
  test("a company on a 10-a-minute plan sending refused batches meets 429: refunds stop at its rate", async () => {
    await freshRateWindow(30_000);
    const api = suite.api.as((await newCompany({ plan: "free", rateLimit: 10 })).token);
    const refused = { atomic: true, items: [{ name: "Fine" }, { email: "no name" }] };
    const statuses: number[] = [];
    for (let sent = 0; sent < 25; sent++) {
      const answer = await api.post("/v1/clients/batch", refused);
      statuses.push(answer.status);
      if (answer.status === 429) {
        expect(answer.body.code).toBe("rate_limited");
        expect(Number(answer.headers.get("retry-after"))).toBeGreaterThan(0);
      } else expect(answer.body.code).toBe("batch_failed");
    }
    // Ten refusals given back, ten more counted, then the limit holds.
    expect(statuses).toEqual([...Array(20).fill(422), ...Array(5).fill(429)]);
    // Nothing was written, and a replay-free read is refused as well now.
    expect((await api.get("/v1/clients")).status).toBe(429);
  });
});

describe("batches take turns", () => {
  /** One reading company's GET latencies (ms): `readers` at once, `count` in all. */
  async function reads(token: string, path: string, count: number, readers = 3) {
    const times: number[] = [];
    await Promise.all(
      Array.from({ length: readers }, async () => {
        for (let sent = 0; sent < count / readers; sent++) {
          const started = performance.now();
          const answer = await fetch(`${suite.server.baseUrl}${path}`, {
            headers: { authorization: `Bearer ${token}` },
          });
          await answer.arrayBuffer();
          if (answer.status !== 200) throw new Error(`GET ${path} → ${answer.status}`);
          times.push(performance.now() - started);
        }
      }),
    );
    return times;
  }

  /** Batches of `items` creates sent on `connections` connections until `stop()`; counts them. */
  function flood(token: string, connections: number, items: number) {
    let stopped = false;
    const answered = new Map<number, number>();
    const loops = Array.from({ length: connections }, async (_, connection) => {
      for (let sent = 0; !stopped; sent++) {
        const body = JSON.stringify({
          items: Array.from({ length: items }, (_, index) => ({
            name: `Flood ${connection}-${sent}-${index}`,
          })),
        });
        const answer = await fetch(`${suite.server.baseUrl}/v1/clients/batch`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body,
        });
        await answer.arrayBuffer();
        answered.set(answer.status, (answered.get(answer.status) ?? 0) + 1);
      }
    });
    return {
      answered,
      stop: async () => {
        stopped = true;
        await Promise.all(loops);
      },
    };
  }

  /** Alternating idle and flooded rounds: the reader's p99 in each state, over every round. */
  async function measure(flooders: string[], reader: string, path: string) {
    const idle: number[] = [];
    const busy: number[] = [];
    const batches = new Map<number, number>();
    for (let round = 0; round < 5; round++) {
      idle.push(...(await reads(reader, path, 150)));
      const floods = flooders.map((token) => flood(token, 8, 100));
      await Bun.sleep(300);
      busy.push(...(await reads(reader, path, 150)));
      await Promise.all(floods.map((one) => one.stop()));
      for (const one of floods)
        for (const [status, count] of one.answered)
          batches.set(status, (batches.get(status) ?? 0) + count);
    }
    return { idle: percentile(idle, 0.99), busy: percentile(busy, 0.99), batches };
  }

  test("two companies flooding batches on every connection keep a third company's GET p99 within 2x of idle", async () => {
    const [a, b, c] = await Promise.all([newCompany(), newCompany(), newCompany()]);
    const made = await suite.api.as(c.token).post("/v1/clients", { name: "Read all along" });
    const path = `/v1/clients/${made.body.data.id}`;
    await reads(c.token, path, 60);
    const attempts: string[] = [];
    for (let attempt = 0; attempt < 3; attempt++) {
      const { idle, busy, batches } = await measure([a.token, b.token], c.token, path);
      // The flood was real: every batch written, many of them.
      expect([...batches.keys()]).toEqual([200]);
      expect(batches.get(200)).toBeGreaterThan(40);
      const within = busy <= 2 * idle;
      attempts.push(
        `idle p99 ${idle.toFixed(1)} ms, flooded ${busy.toFixed(1)} ms${within ? " (within 2x)" : ""}`,
      );
      if (within) break;
    }
    console.log(`[fair-load] ${attempts.join("; ")}`);
    expect(attempts.at(-1)).toEndWith("(within 2x)");
  });
});
