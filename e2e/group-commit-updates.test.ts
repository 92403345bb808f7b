// Updates in group commits (server/src/writes/row-versions.ts, group-commits.ts): a PATCH decides on
// a read outside its transaction and writes only the row as read, so concurrent PATCHes of one
// company commit together. Whatever the interleaving, each answer must tell what its write did, the
// feed must hold one event per committed change without a gap and in commit order (each change's
// `from` the `to` of the change before it), the rules that read the stored record (If-Match,
// transitions, locks) must hold as if the writes had run one after another, and the record must end
// as the last committed write left it. The writes go to two server processes: within one, group
// commits keep two updates of a row apart; across them, only the guarded update does.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import type { RowDataPacket } from "mysql2";
import { Api, type ApiResponse } from "@erp/testing/api";
import { newCompany, testDb } from "@erp/testing/company";
import { startServer, type RunningServer } from "@erp/testing/server";
import { useServer } from "@erp/testing/suite";

setDefaultTimeout(120_000);

const suite = useServer();
let other: RunningServer;
beforeAll(async () => {
  other = await startServer();
});
afterAll(async () => {
  await other?.stop();
});

/** The company's API on the first server and on the other, in turn. */
function servers(token: string): (index: number) => Api {
  const apis = [suite.api.as(token), new Api(other.baseUrl).as(token)];
  return (index) => apis[index % 2]!;
}

interface Event {
  seq: number;
  type: string;
  recordId: number;
  requestId: string;
  record: Record<string, unknown>;
  changes: Record<string, { from: unknown; to: unknown }> | undefined;
}

async function eventsOf(companyId: number): Promise<Event[]> {
  const [rows] = await testDb().pool.query<RowDataPacket[]>(
    "SELECT seq, type, record_id, request_id, data FROM events WHERE company_id = ? ORDER BY seq",
    [companyId],
  );
  return rows.map((row) => {
    const data = typeof row.data === "string" ? JSON.parse(row.data) : row.data;
    return {
      seq: Number(row.seq),
      type: String(row.type),
      recordId: Number(row.record_id),
      requestId: String(row.request_id),
      record: data.record,
      changes: data.changes,
    };
  });
}

let requests = 0;

interface Sent {
  requestId: string;
  body: Record<string, unknown>;
  key?: string;
  response: ApiResponse;
}

/** A PATCH (or PUT) with a request id of its own (events name it), and optionally a key and If-Match. */
async function patch(
  api: Api,
  path: string,
  body: Record<string, unknown>,
  options: { key?: string; ifMatch?: string; method?: string } = {},
): Promise<Sent> {
  const requestId = `patch-${++requests}`;
  const headers: Record<string, string> = { "x-request-id": requestId };
  if (options.key) headers["idempotency-key"] = options.key;
  if (options.ifMatch) headers["if-match"] = options.ifMatch;
  const response = await api.request(options.method ?? "PATCH", path, { body, headers });
  return { requestId, body, key: options.key, response };
}

/**
 * The feed is gapless and every answer that wrote is the event of its request: the same record and
 * changes. A replay answers what the first request answered; no event is its own.
 */
function checkAnswersAgainstFeed(sent: readonly Sent[], events: readonly Event[], after = 0): void {
  expect(events.map((event) => event.seq)).toEqual(events.map((_, i) => after + i + 1));
  const byRequest = new Map(events.map((event) => [event.requestId, event]));
  const firstByKey = new Map<string, Sent>();
  for (const write of sent) {
    const { response } = write;
    if (response.status !== 200) continue;
    if (response.headers.get("idempotent-replayed") === "true") continue;
    const event = byRequest.get(write.requestId);
    if (!response.body.data.updated) {
      expect(event).toBeUndefined();
      continue;
    }
    expect(event).toBeDefined();
    expect(response.body.data.record).toEqual(event!.record);
    expect(response.body.data.changes).toEqual(event!.changes);
    if (write.key) firstByKey.set(write.key, write);
  }
  for (const write of sent) {
    if (write.response.headers.get("idempotent-replayed") !== "true") continue;
    expect(write.response.body).toEqual(firstByKey.get(write.key!)!.response.body);
  }
}

/**
 * Each record's update events, in feed order, form one chain: each change starts where the one
 * before it ended, each updated_at is later than the one before, and the record is now what the
 * last event says.
 */
async function checkChains(api: Api, path: string, events: readonly Event[]): Promise<void> {
  const byRecord = new Map<number, Event[]>();
  for (const event of events) {
    byRecord.set(event.recordId, [...(byRecord.get(event.recordId) ?? []), event]);
  }
  for (const [id, chain] of byRecord) {
    for (const [index, event] of chain.entries()) {
      if (index === 0) continue;
      const before = chain[index - 1]!;
      for (const [field, change] of Object.entries(event.changes ?? {}))
        expect(change.from).toEqual(before.record[field]);
      expect(Date.parse(String(event.record.updated_at))).toBeGreaterThan(
        Date.parse(String(before.record.updated_at)),
      );
    }
    const now = await api.get(`${path}/${id}`);
    expect(now.body.data).toEqual(chain.at(-1)!.record);
  }
}

test(
  "concurrent PATCHes of 30 records, three each, some keyed (some keys sent twice at once), " +
    "some with If-Match: every answer is its write's, every record's changes form one chain in the " +
    "feed, and each record ends as its last event says",
  async () => {
    const { token, companyId } = await newCompany();
    const api = suite.api.as(token);
    const made = await api.post("/v1/workers/batch", {
      items: Array.from({ length: 30 }, (_, i) => ({ name: `Worker ${i}`, phone: `start-${i}` })),
    });
    expect(made.body.data.created).toBe(30);
    const ids: number[] = made.body.data.results.map((result: { id: number }) => result.id);
    const etags = await Promise.all(
      ids.map(async (id) => (await api.get(`/v1/workers/${id}`)).headers.get("etag")!),
    );
    const plans = ids.flatMap((id, i) => [
      ...[0, 1, 2].map((k) => ({
        id,
        body: { phone: `${i}-${k}` },
        key: k === 0 ? `key-${i}` : undefined,
        twice: k === 0 && i % 3 === 0,
      })),
      // Succeeds only if it commits before every other write of its record.
      ...(i % 2 === 0 ? [{ id, body: { email: `w${i}@example.com` }, ifMatch: etags[i]! }] : []),
    ]);
    const sends = [...plans, ...plans.filter((plan) => "twice" in plan && plan.twice)].sort(
      () => Math.random() - 0.5,
    );
    const on = servers(token);
    const sent = await Promise.all(
      sends.map((plan, index) =>
        patch(on(index), `/v1/workers/${plan.id}`, plan.body, {
          key: "key" in plan ? plan.key : undefined,
          ifMatch: "ifMatch" in plan ? plan.ifMatch : undefined,
        }),
      ),
    );
    for (const write of sent) {
      if (write.response.status === 409)
        expect(write.response.body.code).toBe("idempotency_in_progress");
      else if (write.response.status === 412) expect(write.key).toBeUndefined();
      else expect(write.response.status).toBe(200);
    }
    const events = await eventsOf(companyId);
    checkAnswersAgainstFeed(sent, events);
    const updates = events.filter((event) => event.type === "worker.updated");
    // Each planned write without If-Match wrote once, keyed or not, twice sent or not.
    const withIfMatch = sent.filter((write) => write.body.email !== undefined);
    const matched = withIfMatch.filter((write) => write.response.status === 200);
    expect(updates.length).toBe(ids.length * 3 + matched.length);
    // An If-Match write that succeeded came first among its record's updates.
    for (const write of matched) {
      const first = updates.find((event) => event.recordId === write.response.body.data.id);
      expect(first?.requestId).toBe(write.requestId);
    }
    await checkChains(api, "/v1/workers", updates);
  },
);

test(
  "30 concurrent PATCHes of one record (10 keyed, 5 of those sent twice at once) all commit, one " +
    "after another: the feed chains them and the record ends as the last one left it",
  async () => {
    const { token, companyId } = await newCompany();
    const api = suite.api.as(token);
    const made = await api.post("/v1/workers", { name: "Contended", phone: "start" });
    const id = made.body.data.id as number;
    const plans = Array.from({ length: 30 }, (_, k) => ({
      body: { phone: `p-${k}` },
      key: k < 10 ? `same-${k}` : undefined,
    }));
    const sends = [...plans, ...plans.slice(0, 5)].sort(() => Math.random() - 0.5);
    const on = servers(token);
    const sent = await Promise.all(
      sends.map((plan, index) =>
        patch(on(index), `/v1/workers/${id}`, plan.body, { key: plan.key }),
      ),
    );
    for (const write of sent) {
      if (write.response.status === 409)
        expect(write.response.body.code).toBe("idempotency_in_progress");
      else expect(write.response.status).toBe(200);
    }
    const events = await eventsOf(companyId);
    checkAnswersAgainstFeed(sent, events);
    const updates = events.filter((event) => event.type === "worker.updated");
    expect(updates.length).toBe(30);
    await checkChains(api, "/v1/workers", updates);
  },
);

test("15 concurrent PATCHes of one record with the same If-Match: one commits, 14 are 412", async () => {
  const { token, companyId } = await newCompany();
  const api = suite.api.as(token);
  const made = await api.post("/v1/workers", { name: "Matched" });
  const id = made.body.data.id as number;
  const etag = (await api.get(`/v1/workers/${id}`)).headers.get("etag")!;
  const on = servers(token);
  const sent = await Promise.all(
    Array.from({ length: 15 }, (_, k) =>
      patch(on(k), `/v1/workers/${id}`, { phone: `m-${k}` }, { ifMatch: etag }),
    ),
  );
  const statuses = sent.map((write) => write.response.status).sort();
  expect(statuses).toEqual([200, ...Array(14).fill(412)]);
  const events = await eventsOf(companyId);
  checkAnswersAgainstFeed(sent, events);
  expect(events.filter((event) => event.type === "worker.updated").length).toBe(1);
  await checkChains(
    api,
    "/v1/workers",
    events.filter((event) => event.type === "worker.updated"),
  );
});

const PROJECT_TRANSITIONS: Record<string, string[]> = {
  DRAFT: ["ACTIVE", "CANCELLED"],
  ACTIVE: ["ON_HOLD", "COMPLETED", "CANCELLED"],
  ON_HOLD: ["ACTIVE", "CANCELLED"],
};

test(
  "concurrent status changes and billing_mode changes of projects obey the transitions and the " +
    "draft lock in the order they committed",
  async () => {
    const { token, companyId } = await newCompany();
    const api = suite.api.as(token);
    const on = servers(token);
    const statuses = ["ACTIVE", "ON_HOLD", "ACTIVE", "CANCELLED", "COMPLETED", "ON_HOLD"];
    const sent: Sent[] = [];
    const ids: number[] = [];
    for (let round = 0; round < 8; round++) {
      const made = await api.post("/v1/projects", { name: `Project ${round}` });
      ids.push(made.body.data.id);
    }
    await Promise.all(
      ids.map(async (id, round) => {
        const writes = await Promise.all([
          ...statuses.map((status, k) => patch(on(k), `/v1/projects/${id}`, { status })),
          patch(on(0), `/v1/projects/${id}`, { billing_mode: "COST_PLUS" }),
          patch(on(1), `/v1/projects/${id}`, { billing_mode: "TIME_AND_MATERIALS" }),
          patch(on(round), `/v1/projects/${id}`, { name: `Renamed ${round}` }),
        ]);
        sent.push(...writes);
      }),
    );
    for (const write of sent) {
      const { status, body } = write.response;
      if (status === 409)
        expect(["invalid_transition", "billing_mode_locked"]).toContain(body.code);
      else expect(status).toBe(200);
    }
    const events = await eventsOf(companyId);
    checkAnswersAgainstFeed(sent, events);
    const updates = events.filter((event) => event.type === "project.updated");
    for (const id of ids) {
      // Replayed in feed order from DRAFT, every change is allowed where it stands.
      let status = "DRAFT";
      for (const event of updates.filter((event) => event.recordId === id)) {
        const change = event.changes!;
        if (change.billing_mode) expect(status).toBe("DRAFT");
        if (change.status) {
          expect(change.status.from).toBe(status);
          expect(PROJECT_TRANSITIONS[status]).toContain(change.status.to as string);
          status = change.status.to as string;
        }
      }
    }
    await checkChains(api, "/v1/projects", updates);
  },
);

test("an estimate sent while its title is changed: the title change commits only before the send", async () => {
  const { token, companyId } = await newCompany();
  const api = suite.api.as(token);
  const sent: Sent[] = [];
  const ids: number[] = [];
  for (let round = 0; round < 10; round++) {
    const made = await api.post("/v1/estimates", { title: `Estimate ${round}` });
    ids.push(made.body.data.id);
  }
  await Promise.all(
    ids.map(async (id, round) => {
      sent.push(
        ...(await Promise.all([
          patch(api, `/v1/estimates/${id}`, { status: "SENT" }),
          patch(api, `/v1/estimates/${id}`, { title: `Changed ${round}` }),
          patch(api, `/v1/estimates/${id}`, { amount: "10.00" }),
        ])),
      );
    }),
  );
  for (const write of sent) {
    const { status, body } = write.response;
    if (status === 409) expect(body.code).toBe("estimate_not_draft");
    else expect(status).toBe(200);
  }
  const events = await eventsOf(companyId);
  checkAnswersAgainstFeed(sent, events);
  const updates = events.filter((event) => event.type === "estimate.updated");
  for (const id of ids) {
    let status = "DRAFT";
    for (const event of updates.filter((event) => event.recordId === id)) {
      if (event.changes!.title || event.changes!.amount) expect(status).toBe("DRAFT");
      if (event.changes!.status) status = event.changes!.status.to as string;
    }
    // Every write was answered: the send always commits; the others only before it.
    expect(updates.some((event) => event.recordId === id && event.changes!.status)).toBe(true);
  }
  await checkChains(api, "/v1/estimates", updates);
});

test(
  "20 concurrent upserts of one external id over two servers: one creates the record, the others " +
    "update it one after another, and the feed chains them",
  async () => {
    const { token, companyId } = await newCompany();
    const on = servers(token);
    const path = "/v1/workers/by-external-id/contended-1";
    const sent = await Promise.all(
      Array.from({ length: 20 }, (_, k) =>
        patch(on(k), path, { name: "Upserted", phone: `u-${k}` }, { method: "PUT" }),
      ),
    );
    const statuses = sent.map((write) => write.response.status).sort();
    expect(statuses).toEqual([200, ...Array(18).fill(200), 201].sort());
    const events = await eventsOf(companyId);
    expect(events.map((event) => event.type)).toEqual([
      "worker.created",
      ...Array(19).fill("worker.updated"),
    ]);
    const created = sent.find((write) => write.response.status === 201)!;
    expect(events[0]!.requestId).toBe(created.requestId);
    checkAnswersAgainstFeed(
      sent.filter((write) => write !== created),
      events.slice(1),
      events[0]!.seq,
    );
    await checkChains(on(0), "/v1/workers", events);
  },
);
