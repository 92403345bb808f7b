// Operations (docs/operations.md): a real Prometheus scrapes a server's /metrics on their own
// address, OpenTelemetry spans reach an OTLP receiver only when one is configured (in OTLP's
// protobuf encoding unless told otherwise), and every request is one JSON log line naming the
// request, never its token, body or a secret.
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import path from "node:path";
import { Api } from "@erp/testing/api";
import { closeTestDb, newCompany } from "@erp/testing/company";
import { type ReceivedSpan, spansOf } from "@erp/testing/otlp-traces";
import { findPrometheus, startPrometheus } from "@erp/testing/prometheus";
import { ROOT, type RunningServer, startServer, testDatabaseUrl } from "@erp/testing/server";

setDefaultTimeout(120_000);

const servers: RunningServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop()));
  await closeTestDb();
});

async function serve(env: Record<string, string> = {}): Promise<RunningServer> {
  const server = await startServer({ env });
  servers.push(server);
  return server;
}

/** Runs `check` until it returns true, else fails after `withinMs`. */
async function eventually(what: string, check: () => Promise<boolean>, withinMs = 20_000) {
  const deadline = Date.now() + withinMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${withinMs} ms: ${what}`);
    await Bun.sleep(250);
  }
}

const prometheus = findPrometheus();
if ("missing" in prometheus)
  console.warn(`!!! ${prometheus.missing}: the Prometheus test is SKIPPED`);

describe("metrics", () => {
  test("/metrics is not served on the public port", async () => {
    const server = await serve();
    const response = await fetch(`${server.baseUrl}/metrics`);
    expect(response.status).toBe(404);
    expect((await response.json()).code).toBe("route_not_found");
    expect(server.metricsUrl).toBeDefined();
    expect(new URL(server.metricsUrl!).port).not.toBe(String(server.port));
  });

  test.skipIf("missing" in prometheus)(
    "a real Prometheus counts the traffic sent per route and status, and sees a dead receiver's backlog rise",
    async () => {
      const server = await serve({ WEBHOOK_ALLOW_PRIVATE: "1", ERP_WEBHOOK_POLL_MS: "100" });
      const company = await newCompany();
      const api = new Api(server.baseUrl, company.token);
      const scraper = await startPrometheus((prometheus as { binary: string }).binary, [
        new URL(server.metricsUrl!).host,
      ]);
      try {
        const count = (method: string, route: string, status: number) =>
          scraper.value(
            `sum(erp_http_requests_total{method="${method}",route="${route}",status="${status}"})`,
          );
        await eventually("the first scrape", async () => (await scraper.value("up")) === 1);

        // A receiver that is never there: its deliveries stay pending and pile up.
        const closed = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
        const deadUrl = `http://127.0.0.1:${closed.port}/hooks`;
        await closed.stop(true);
        const hook = await api.post("/v1/webhook-endpoints", { url: deadUrl, events: ["*"] });
        expect(hook.status).toBe(201);
        await eventually(
          "the backlog series",
          async () =>
            (await scraper.value('erp_webhook_deliveries{status="pending"}')) !== undefined,
        );
        const backlogBefore = (await scraper.value('erp_webhook_deliveries{status="pending"}'))!;

        const sent = { list: 7, created: 5, missing: 3, invalid: 2 };
        for (let i = 0; i < sent.list; i++) expect((await api.get("/v1/workers")).status).toBe(200);
        for (let i = 0; i < sent.created; i++)
          expect((await api.post("/v1/workers", { name: `Metered ${i}` })).status).toBe(201);
        for (let i = 0; i < sent.missing; i++)
          expect((await api.get("/v1/workers/999999999")).status).toBe(404);
        for (let i = 0; i < sent.invalid; i++)
          expect((await api.post("/v1/workers", { name: "" })).status).toBe(422);

        await eventually("the counts of the traffic sent", async () => {
          const [list, created, missing, invalid] = await Promise.all([
            count("GET", "/v1/workers", 200),
            count("POST", "/v1/workers", 201),
            count("GET", "/v1/workers/{id}", 404),
            count("POST", "/v1/workers", 422),
          ]);
          return (
            list === sent.list &&
            created === sent.created &&
            missing === sent.missing &&
            invalid === sent.invalid
          );
        });
        // Nothing else was counted under those routes: the label is the template, never the id.
        expect(await scraper.value('count(erp_http_requests_total{route=~".*999999999.*"})')).toBe(
          undefined,
        );
        await eventually(
          "the backlog rising by the 5 created workers' deliveries",
          async () =>
            ((await scraper.value('erp_webhook_deliveries{status="pending"}')) ?? 0) >=
            backlogBefore + sent.created,
        );
        expect(
          await scraper.value('sum(erp_http_request_duration_seconds_count{route="/v1/workers"})'),
        ).toBe(sent.list + sent.created + sent.invalid);
        expect(
          await scraper.value('sum(erp_db_pool_connections_in_use{pool="read"})'),
        ).toBeDefined();
      } finally {
        await scraper.stop();
      }
    },
  );

  test.skipIf(!Bun.which("promtool"))("promtool accepts the shipped alert rules", () => {
    const check = Bun.spawnSync(
      ["promtool", "check", "rules", path.join(ROOT, "docs/prometheus-alerts.yml")],
      { stdout: "pipe", stderr: "pipe" },
    );
    expect(`${check.stdout}${check.stderr}`).toContain("SUCCESS: 5 rules found");
    expect(check.exitCode).toBe(0);
  });
});

/** An OTLP/HTTP receiver that keeps every span it is sent, whichever encoding it came in. */
function otlpReceiver(port = 0) {
  const spans: ReceivedSpan[] = [];
  const contentTypes = new Set<string | null>();
  let requests = 0;
  const server = Bun.serve({
    port,
    hostname: "127.0.0.1",
    async fetch(request) {
      requests += 1;
      const contentType = request.headers.get("content-type");
      contentTypes.add(contentType);
      spans.push(...spansOf(contentType, new Uint8Array(await request.arrayBuffer())));
      return Response.json({});
    },
  });
  return { server, spans, contentTypes, requests: () => requests };
}

describe("traces", () => {
  test.each([
    ["in OTLP's protobuf encoding by default", {}, "application/x-protobuf"],
    [
      "in OTLP/JSON with http/json",
      { OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" },
      "application/json",
    ],
  ])(
    "a POST with a traceparent: its request span continues the trace, with a child span per statement, %s",
    async (_, protocol, contentType) => {
      const receiver = otlpReceiver();
      try {
        const server = await serve({
          OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${receiver.server.port}`,
          OTEL_BSP_SCHEDULE_DELAY: "200",
          ...protocol,
        });
        const company = await newCompany();
        const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
        const parent = "00f067aa0ba902b7";
        const created = await new Api(server.baseUrl, company.token).post(
          "/v1/workers",
          { name: "Traced" },
          { headers: { traceparent: `00-${traceId}-${parent}-01` } },
        );
        expect(created.status).toBe(201);
        const answered = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(
          created.headers.get("traceparent") ?? "",
        );
        expect(answered?.[1]).toBe(traceId);
        const requestSpanId = answered![2]!;

        await eventually("the request span", async () =>
          receiver.spans.some((span) => span.spanId === requestSpanId),
        );
        expect([...receiver.contentTypes]).toEqual([contentType]);
        const requestSpan = receiver.spans.find((span) => span.spanId === requestSpanId)!;
        expect(requestSpan.traceId).toBe(traceId);
        expect(requestSpan.parentSpanId).toBe(parent);
        expect(requestSpan.name).toBe("POST /v1/workers");
        expect(requestSpan.kind).toBe(2);
        expect(BigInt(requestSpan.endTimeUnixNano)).toBeGreaterThan(
          BigInt(requestSpan.startTimeUnixNano),
        );
        const company_id = requestSpan.attributes?.find((a) => a.key === "erp.company_id");
        expect(Number(company_id?.value.intValue)).toBe(company.companyId);
        const statements = receiver.spans.filter((span) => span.parentSpanId === requestSpanId);
        expect(statements.length).toBeGreaterThan(0);
        for (const span of statements) expect(span.traceId).toBe(traceId);
      } finally {
        await receiver.server.stop(true);
      }
    },
  );

  test("grpc, a protocol not spoken, refuses to start the server, naming the variable and the values", async () => {
    const child = Bun.spawn([process.execPath, path.join(ROOT, "server/src/main.ts")], {
      cwd: ROOT,
      env: {
        ...process.env,
        DATABASE_URL: testDatabaseUrl(),
        PORT: "0",
        HOST: "127.0.0.1",
        ERP_SKIP_DEMO: "1",
        METRICS_LISTEN: "off",
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4317",
        OTEL_EXPORTER_OTLP_PROTOCOL: "grpc",
      },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    const [code, stdout, stderr] = await Promise.all([
      child.exited,
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
    ]);
    expect(code).not.toBe(0);
    expect(stderr).toContain(
      'OTEL_EXPORTER_OTLP_PROTOCOL must be http/protobuf or http/json, not "grpc"',
    );
    expect(stdout).not.toContain("listening on");
  });

  test("with no endpoint configured nothing is sent, even to the default OTLP address", async () => {
    let receiver: ReturnType<typeof otlpReceiver> | undefined;
    try {
      receiver = otlpReceiver(4318);
    } catch {
      console.warn("127.0.0.1:4318 is taken: only the absence of an exporter is checked");
    }
    try {
      const server = await serve();
      const company = await newCompany();
      const api = new Api(server.baseUrl, company.token);
      for (let i = 0; i < 5; i++)
        expect((await api.post("/v1/workers", { name: `Quiet ${i}` })).status).toBe(201);
      // The exporter would have sent within its batch delay (5 s by default); wait past it.
      await Bun.sleep(5_500);
      expect(receiver?.requests() ?? 0).toBe(0);
      expect(server.logs()).not.toContain("traces exported over OTLP");
      expect(server.output()).not.toContain("traces exported over OTLP");
    } finally {
      await receiver?.server.stop(true);
    }
  });
});

describe("logs", () => {
  test("every request is one JSON line with its request and trace ids; no token, secret or body appears", async () => {
    const server = await serve({ WEBHOOK_ALLOW_PRIVATE: "1" });
    const company = await newCompany();
    const api = new Api(server.baseUrl, company.token);
    const secretBody = "Body-only-text-7f3a";
    const responses = [
      await api.get("/v1/workers", { headers: { "x-request-id": "log-check-1" } }),
      await api.post("/v1/workers", { name: secretBody }),
      await api.post("/v1/workers", { name: secretBody, wage: 1 }),
      await api.get("/v1/workers/424242"),
      await new Api(server.baseUrl, "erp_not_a_real_token").get("/v1/workers"),
    ];
    const hook = await api.post("/v1/webhook-endpoints", {
      url: "http://127.0.0.1:9/hooks",
      events: ["*"],
    });
    expect(hook.status).toBe(201);
    const secret = hook.body.data.secret as string;
    await eventually("the log lines", async () => {
      const lines = server
        .output()
        .split("\n")
        .filter((line) => line.startsWith("{"));
      return lines.length >= responses.length + 1;
    });

    const lines = server
      .output()
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    for (const [index, response] of responses.entries()) {
      const requestId = response.headers.get("x-request-id");
      const line = lines.find((entry) => entry.request_id === requestId);
      expect(line).toBeDefined();
      expect(line).toMatchObject({
        method: index === 1 || index === 2 ? "POST" : "GET",
        status: response.status,
        trace_id: response.headers.get("traceparent")!.split("-")[1],
      });
      expect(typeof line!.duration_ms).toBe("number");
      expect(typeof line!.db_ms).toBe("number");
      expect(typeof line!.time).toBe("string");
      expect(typeof line!.level).toBe("string");
    }
    expect(lines.find((entry) => entry.request_id === "log-check-1")).toMatchObject({
      route: "/v1/workers",
      company_id: company.companyId,
    });
    expect(lines.find((entry) => entry.status === 404)).toMatchObject({
      route: "/v1/workers/{id}",
    });
    const everything = `${server.output()}\n${server.logs()}`;
    for (const secretText of [company.token, "erp_not_a_real_token", secret, secretBody])
      expect(everything).not.toContain(secretText);
  });
});
