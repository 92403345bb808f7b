// The feed's reads (`bun bench/feed.ts [--quick]`, alone, on a throw-away database and a server of
// its own): a company's 100,000 events written as the API writes them (batches of 500 worker
// creates, one worker updated after each batch), then the whole feed read in pages of 100 following
// `next_cursor` (events/s, and each page's median and p99), and a record's history: the updated
// worker's (one event per batch, spread over the feed) in pages of 100, and a worker's single
// event. The history pages and the feed's first page take turns, so a load that comes and goes on
// the machine falls on each alike.
import { connectDatabase, createCompany } from "@erp/server/admin";
import { spawnServer } from "./spawn-server.ts";
import { withThrowAwayDatabase } from "./throw-away-database.ts";

const quick = process.argv.includes("--quick");
const BATCHES = quick ? 10 : 200;
const BATCH = 500;
const WALKS = quick ? 1 : 3;
const REQUESTS = quick ? 20 : 200;

const round = (value: number, digits = 2): number =>
  Math.round(value * 10 ** digits) / 10 ** digits;

function summary(times: number[]): { p50: number; p99: number } {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
  return { p50: round(at(0.5)), p99: round(at(0.99)) };
}

async function main(): Promise<void> {
  await withThrowAwayDatabase("erp_bench_feed", async (url) => {
    const db = connectDatabase(url, { connectionLimit: 2 });
    const server = await spawnServer("server/src/main.ts", url, {
      env: { LOG_FORMAT: "off", METRICS_LISTEN: "off" },
    });
    try {
      const { token } = await createCompany(db.db, {
        name: "Feed bench",
        plan: "enterprise",
        addons: ["api"],
      });
      const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
      const call = async (method: string, path: string, body?: unknown): Promise<any> => {
        const response = await fetch(`${server.baseUrl}${path}`, {
          method,
          headers,
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        const text = await response.text();
        if (response.status >= 300)
          throw new Error(`${method} ${path}: ${response.status} ${text}`);
        return JSON.parse(text);
      };

      const seeding = performance.now();
      const followed = (await call("POST", "/v1/workers", { name: "Followed" })).data.id as number;
      let single = 0;
      for (let batch = 0; batch < BATCHES; batch++) {
        const items = Array.from({ length: BATCH }, (_, i) => ({
          name: `Feed ${batch}-${i}`,
          email: `feed${batch}-${i}@example.com`,
          phone: `+1 555 ${String(i).padStart(4, "0")}`,
        }));
        const written = await call("POST", "/v1/workers/batch", { items });
        single ||= written.data.results[0].id as number;
        await call("PATCH", `/v1/workers/${followed}`, { phone: `+1 555 9${batch}` });
      }
      const events = 1 + BATCHES * (BATCH + 1);
      const seedSeconds = (performance.now() - seeding) / 1000;

      const get = async (path: string): Promise<{ ms: number; body: any }> => {
        const started = performance.now();
        const response = await fetch(`${server.baseUrl}${path}`, { headers });
        const body = await response.json();
        if (response.status !== 200) throw new Error(`GET ${path}: ${response.status}`);
        return { ms: performance.now() - started, body };
      };

      // The whole feed, page after page, as a consumer catching up reads it.
      const walks: { seconds: number; pages: number[] }[] = [];
      for (let walk = 0; walk < WALKS; walk++) {
        const started = performance.now();
        const pages: number[] = [];
        let cursor: string | null = null;
        let seen = 0;
        for (;;) {
          const page = await get(`/v1/events?limit=100${cursor ? `&after=${cursor}` : ""}`);
          if (page.body.data.length === 0) break;
          pages.push(page.ms);
          seen += page.body.data.length;
          cursor = page.body.meta.next_cursor;
        }
        if (seen !== events) throw new Error(`the feed held ${seen} events, not ${events}`);
        walks.push({ seconds: (performance.now() - started) / 1000, pages });
      }
      const walk = walks.sort((a, b) => a.seconds - b.seconds)[Math.floor(walks.length / 2)]!;

      // A record's history: the followed worker's pages and a single event's, taking turns.
      const paths = [
        `/v1/workers/${followed}/events?limit=100`,
        `/v1/workers/${single}/events?limit=100`,
        "/v1/events?limit=100",
      ];
      const timings: number[][] = paths.map(() => []);
      for (let i = 0; i < 5; i++) for (const path of paths) await get(path);
      for (let i = 0; i < REQUESTS; i++)
        for (const [index, path] of paths.entries()) timings[index]!.push((await get(path)).ms);
      const history = await get(`/v1/workers/${followed}/events?limit=100`);
      if (history.body.data.length !== Math.min(100, BATCHES + 1))
        throw new Error(`the followed worker's history held ${history.body.data.length} events`);

      const result = {
        events,
        seed_seconds: round(seedSeconds, 1),
        feed_walks: walks.length,
        feed_walk_seconds: round(walk.seconds),
        feed_events_per_second: Math.round(events / walk.seconds),
        feed_page_ms: summary(walk.pages),
        history_of_many_ms: { events: BATCHES + 1, ...summary(timings[0]!) },
        history_of_one_ms: summary(timings[1]!),
        first_page_ms: summary(timings[2]!),
        requests_each: REQUESTS,
      };
      console.log(JSON.stringify(result, null, 2));
    } finally {
      server.process.kill("SIGTERM");
      await server.process.exited;
      await db.close();
    }
  });
}

await main();
