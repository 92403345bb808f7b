// The live change feed (docs/events-and-webhooks.md): `after=latest` starts at the newest event and `wait=N`
// long-polls, answered as soon as an event commits on any server, empty after N s, and at once
// when the server shuts down; `erp listen` starts from the newest event without reading the feed.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import type { RowDataPacket } from "mysql2";
import { cursorAt, eventId } from "@erp/server/event-ids";
import { Api, type ApiResponse } from "@erp/testing/api";
import { tempDir } from "@erp/testing/cli";
import { newCompany, testDb } from "@erp/testing/company";
import { ROOT, startServer, type RunningServer } from "@erp/testing/server";
import { useServer } from "@erp/testing/suite";

setDefaultTimeout(120_000);

const suite = useServer();

interface FeedEvent {
  id: string;
  type: string;
  record_id: number;
}

async function companyApi(
  server: RunningServer = suite.server,
): Promise<{ api: Api; companyId: number; token: string }> {
  const { token, companyId } = await newCompany();
  return { api: new Api(server.baseUrl, token), companyId, token };
}

const latest = async (api: Api): Promise<string> => {
  const page = await api.get("/v1/events?after=latest");
  expect(page.status).toBe(200);
  expect(page.body.data).toEqual([]);
  return page.body.meta.next_cursor as string;
};

describe("after=latest", () => {
  test(
    "an empty feed gives a cursor at its start, from which the first event follows; then the " +
      "newest event's id",
    async () => {
      const { api } = await companyApi();
      const start = await api.get("/v1/events?after=latest");
      expect(start.body).toEqual({ data: [], meta: { next_cursor: cursorAt(0), limit: 50 } });
      await api.post("/v1/clients", { name: "First" });
      await api.post("/v1/clients", { name: "Second" });
      const after = await api.get(`/v1/events?after=${start.body.meta.next_cursor}`);
      expect(after.body.data.map((event: FeedEvent) => event.type)).toEqual([
        "client.created",
        "client.created",
      ]);
      expect(await latest(api)).toBe(after.body.data[1].id);
      expect((await api.get(`/v1/events?after=${await latest(api)}`)).body.data).toEqual([]);
    },
  );

  test("bad wait values are 400 invalid_query and name the range", async () => {
    const { api } = await companyApi();
    for (const query of [
      "wait=0",
      "wait=31",
      "wait=abc",
      "wait=1.5",
      "wait=-1",
      "wait=",
      "wait=5&wait=6",
      "after=latest&wait=100",
    ]) {
      const response = await api.get(`/v1/events?${query}`);
      expect({ query, status: response.status, code: response.body.code }).toEqual({
        query,
        status: 400,
        code: "invalid_query",
      });
    }
    expect((await api.get("/v1/events?wait=31")).body.detail).toContain("from 1 to 30");
  });
});

describe("long-poll", () => {
  test("with no new event, an empty page after the wait, with the same cursor", async () => {
    const { api } = await companyApi();
    await api.post("/v1/clients", { name: "Before" });
    const cursor = await latest(api);
    const started = performance.now();
    const page = await api.get(`/v1/events?after=${cursor}&wait=1`);
    const elapsed = performance.now() - started;
    expect(page.status).toBe(200);
    expect(page.body).toEqual({ data: [], meta: { next_cursor: cursor, limit: 50 } });
    expect(elapsed).toBeGreaterThanOrEqual(1_000);
  });

  test("narrowed by type, a long-poll lets other events pass and answers with the next matching one", async () => {
    const { api } = await companyApi();
    const cursor = await latest(api);
    const waiting = api.get(`/v1/events?after=${cursor}&type=project.*&wait=20`);
    const client = await api.post("/v1/clients", { name: "Not awaited" });
    expect(client.status).toBe(201);
    const project = (await api.post("/v1/projects", { name: "Awaited" })).body.data.id as number;
    const page = await waiting;
    expect(page.status).toBe(200);
    expect(page.body.data.map((event: FeedEvent) => [event.type, event.record_id])).toEqual([
      ["project.created", project],
    ]);
  });

  test(
    "narrowed by type on a server that writes nothing: other events from another server " +
      "pass, the matching one answers within 1 s",
    async () => {
      const other = await startServer();
      try {
        const { api, token } = await companyApi();
        const writer = new Api(other.baseUrl, token);
        const cursor = await latest(api);
        let answered: number | undefined;
        const waiting = api
          .get(`/v1/events?after=${cursor}&type=project.created&wait=20`)
          .then((page) => {
            answered = performance.now();
            return page;
          });
        // Events of other types and resources, some of them past the waiters' next rounds.
        for (let i = 0; i < 5; i++) {
          expect((await writer.post("/v1/workers", { name: `Not awaited ${i}` })).status).toBe(201);
          await Bun.sleep(150);
        }
        expect(answered).toBeUndefined();
        const project = await writer.post("/v1/projects", { name: "Awaited" });
        expect(project.status).toBe(201);
        const committed = performance.now();
        const page = await waiting;
        expect(page.status).toBe(200);
        expect(page.body.data.map((event: FeedEvent) => [event.type, event.record_id])).toEqual([
          ["project.created", project.body.data.id],
        ]);
        expect(answered! - committed).toBeLessThan(1_000);
      } finally {
        await other.stop();
      }
    },
  );

  test(
    "200 writes over three servers: followers using wait=30 see each within 1 s of its " +
      "commit, in order, exactly once",
    async () => {
      // Three servers write; one follower is on a writing server (woken by its commits at once),
      // another on a fourth server that writes nothing (woken by the shared loop's reads only).
      const servers = [suite.server, await startServer(), await startServer(), await startServer()];
      try {
        const { companyId, token } = await companyApi();
        const writers = servers.slice(0, 3).map((server) => new Api(server.baseUrl, token));
        const WRITES = 200;
        const answeredAt = new Map<number, number>();

        const follow = async (api: Api) => {
          const seen: FeedEvent[] = [];
          const seenAt = new Map<number, number>();
          let cursor = await latest(api);
          let requests = 0;
          const done = (async () => {
            while (seen.length < WRITES) {
              const page: ApiResponse = await api.get(
                `/v1/events?after=${cursor}&wait=30&limit=100`,
              );
              requests += 1;
              if (page.status !== 200) throw new Error(`follower: ${page.status} ${page.text}`);
              const now = performance.now();
              for (const event of page.body.data as FeedEvent[]) {
                seen.push(event);
                if (!seenAt.has(event.record_id)) seenAt.set(event.record_id, now);
              }
              cursor = page.body.meta.next_cursor;
            }
          })();
          return { seen, seenAt, done, requests: () => requests };
        };
        const followers = [
          await follow(new Api(servers[0]!.baseUrl, token)),
          await follow(new Api(servers[3]!.baseUrl, token)),
        ];

        // Each writer pauses a moment between writes, so the followers are often waiting when a
        // write commits rather than finding the next one already there.
        let next = 0;
        await Promise.all(
          writers.map(async (writer, server) => {
            while (next < WRITES) {
              const n = next++;
              const created = await writer.post("/v1/clients", { name: `Live ${server}-${n}` });
              if (created.status !== 201)
                throw new Error(`write ${n}: ${created.status} ${created.text}`);
              answeredAt.set(created.body.data.id as number, performance.now());
              await Bun.sleep(Math.random() * 40);
            }
          }),
        );
        await Promise.all(followers.map((follower) => follower.done));

        const [rows] = await testDb().pool.query<RowDataPacket[]>(
          "SELECT id FROM events WHERE company_id = ? ORDER BY seq",
          [companyId],
        );
        expect(rows).toHaveLength(WRITES);
        for (const [index, follower] of followers.entries()) {
          expect(follower.seen.map((event) => event.id)).toEqual(
            rows.map((row) => row.id as string),
          );
          // From the write's answer (its commit came before it) to the follower holding the event.
          const latencies = [...answeredAt]
            .map(([id, answered]) => Math.max(0, follower.seenAt.get(id)! - answered))
            .sort((a, b) => a - b);
          const percentile = (p: number): number =>
            Math.round(
              latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))]!,
            );
          console.log(
            `[events-live] ${WRITES} writes over 3 servers, follower on ` +
              `${index === 0 ? "a writing server" : "a fourth server"} with wait=30: ` +
              `${follower.requests()} long-polls; latency from the write's answer p50 ` +
              `${percentile(0.5)} ms, p99 ${percentile(0.99)} ms, max ${percentile(1)} ms`,
          );
          expect(latencies).toHaveLength(WRITES);
          expect(latencies.at(-1)!).toBeLessThan(1_000);
        }
      } finally {
        await Promise.all(servers.slice(1).map((server) => server.stop()));
      }
    },
  );

  test(
    "SIGTERM answers waiting long-polls at once with an empty page, after they outlived " +
      "Bun's 10 s idle timeout",
    async () => {
      const server = await startServer();
      try {
        const { api } = await companyApi(server);
        const cursor = await latest(api);
        const settled: ApiResponse[] = [];
        const polls = Array.from({ length: 5 }, () =>
          api.get(`/v1/events?after=${cursor}&wait=30`).then((page) => {
            settled.push(page);
            return page;
          }),
        );
        // Past the 10 s a silent connection is otherwise allowed: they must still be waiting.
        await Bun.sleep(11_000);
        expect(settled).toEqual([]);
        const signalled = performance.now();
        const exited = server.stop("SIGTERM");
        const answers = await Promise.all(polls);
        const answeredIn = performance.now() - signalled;
        expect(
          answers.map((page) => [page.status, page.body.data, page.body.meta.next_cursor]),
        ).toEqual(Array(5).fill([200, [], cursor]));
        expect(await exited).toBe(0);
        console.log(
          `[events-live] SIGTERM with 5 long-polls waiting for 11 s: all answered (empty) ` +
            `${Math.round(answeredIn)} ms after the signal`,
        );
        expect(answeredIn).toBeLessThan(5_000);
      } finally {
        await server.stop("SIGKILL");
      }
    },
  );
});

/** `erp listen` with its own config file; resolves once it printed Ready, with the secret and how long that took. */
async function startListen(token: string, config: string, args: string[] = []) {
  const started = performance.now();
  const child = Bun.spawn(
    [process.execPath, path.join(ROOT, "cli/src/main.ts"), "listen", ...args],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        ERP_BASE_URL: suite.server.baseUrl,
        ERP_TOKEN: token,
        ERP_CONFIG: config,
      },
      stdout: "pipe",
      stderr: "pipe",
    },
  );
  const reader = child.stderr.getReader();
  let banner = "";
  while (!banner.includes("Signing secret")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`erp listen exited: ${banner}`);
    banner += new TextDecoder().decode(value);
  }
  const readyMs = performance.now() - started;
  const secret = /Signing secret: (whsec_\S+)/.exec(banner)![1]!;
  const lines = child.stdout.getReader();
  let printed = "";
  /** The first line it prints on stdout. */
  const firstLine = async (): Promise<string> => {
    while (!printed.includes("\n")) {
      const { value, done } = await lines.read();
      if (done) throw new Error(`erp listen printed no line: ${printed}`);
      printed += new TextDecoder().decode(value);
    }
    return printed.slice(0, printed.indexOf("\n"));
  };
  let stopped: Promise<number> | undefined;
  const stop = (): Promise<number> => {
    if (!stopped) {
      child.kill("SIGINT");
      stopped = child.exited;
    }
    return stopped;
  };
  return { secret, readyMs, firstLine, stop };
}

describe("erp listen", () => {
  test("starts in under a second on a feed of 100,000 events, and prints only what commits after", async () => {
    const { api, companyId, token } = await companyApi();
    const EVENTS = 100_000;
    const data = JSON.stringify({ record: { id: 1, name: "Seeded" } });
    for (let first = 1; first <= EVENTS; first += 5_000) {
      const rows = Array.from({ length: 5_000 }, (_, i) => [
        companyId,
        first + i,
        eventId(first + i).slice(-16),
        "client.updated",
        "clients",
        1,
        data,
        "seeded",
        null,
      ]);
      await testDb().pool.query(
        "INSERT INTO events (company_id, seq, token, type, resource, record_id, data, " +
          "request_id, idempotency_key) VALUES ?",
        [rows],
      );
    }
    await testDb().pool.query(
      "UPDATE company_counters SET value = ? WHERE company_id = ? AND name = 'events'",
      [EVENTS, companyId],
    );

    const listen = await startListen(token, path.join(tempDir(), "config.json"));
    try {
      const made = (await api.post("/v1/clients", { name: "After ready" })).body.data.id as number;
      const event = JSON.parse(await listen.firstLine()) as FeedEvent;
      expect([event.type, event.record_id, event.id.slice(4, 14)]).toEqual([
        "client.created",
        made,
        (EVENTS + 1).toString(36).padStart(10, "0"),
      ]);
    } finally {
      await listen.stop();
    }
    console.log(
      `[events-live] erp listen on ${EVENTS.toLocaleString("en")} events: ready ` +
        `${Math.round(listen.readyMs)} ms after it was started`,
    );
    expect(listen.readyMs).toBeLessThan(1_000);
  });

  test("keeps one signing secret per profile across runs, saved with the profile (0600)", async () => {
    const { token } = await companyApi();
    const config = path.join(tempDir(), "config.json");
    const first = await startListen(token, config);
    await first.stop();
    const second = await startListen(token, config);
    await second.stop();
    const staging = await startListen(token, config, ["--profile", "staging"]);
    await staging.stop();
    expect(second.secret).toBe(first.secret);
    expect(staging.secret).not.toBe(first.secret);
    const saved = JSON.parse(readFileSync(config, "utf8"));
    expect(saved.profiles.default.listen_secret).toBe(first.secret);
    expect(saved.profiles.staging.listen_secret).toBe(staging.secret);
    expect(statSync(config).mode & 0o777).toBe(0o600);
  });
});
