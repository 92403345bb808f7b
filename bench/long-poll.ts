// Bench leg: what idle followers of the change feed cost while they wait. 1,000 long-polls
// (`wait=30`, each asked again as soon as it comes back empty, as a follower does) spread over 100
// companies, each on its own connection, held for 30 s: the server's CPU (% of one core) and RSS,
// and the database's statements per second (MariaDB's `Questions` counter, which counts every
// client of the database server), beside the same figures for the idle server just before.
// Then filtered followers of a busy company (filteredLongPolls, below): what the events they do
// not want cost. `bun run bench` runs both after the scenarios; `bun bench/long-poll.ts [--quick]
// [--filtered-only]` runs them alone on a throw-away database. --quick: 100 long-polls over 10
// companies, held for 3 s.
import { readFileSync } from "node:fs";
import type { Subprocess } from "bun";
import { connectDatabase, createCompany, type DatabaseHandle } from "@erp/server/admin";
import { follower, type FollowerCounts, type FollowersMessage } from "./long-poll-followers.ts";
import { cpuSeconds } from "./process-cpu.ts";
import { spawnServer } from "./spawn-server.ts";
import { withThrowAwayDatabase } from "./throw-away-database.ts";

export interface LongPollFigures {
  polls: number;
  companies: number;
  hold_seconds: number;
  /** Long-polls answered (empty, at the end of their wait) and asked again during the hold. */
  answered: number;
  errors: number;
  idle: WindowFigures;
  holding: WindowFigures;
}

interface WindowFigures {
  seconds: number;
  cpu_percent: number;
  rss_mb: number;
  statements_per_second: number;
}

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
}

async function questions(db: DatabaseHandle): Promise<number> {
  const [rows] = await db.pool.query("SHOW GLOBAL STATUS LIKE 'Questions'");
  return Number((rows as { Value: string }[])[0]!.Value);
}

/** The server's CPU and the database's statements over `seconds`, and the server's RSS at the end. */
async function measureWindow(
  db: DatabaseHandle,
  pid: number,
  seconds: number,
): Promise<WindowFigures> {
  const started = performance.now();
  const [cpu, asked] = [cpuSeconds(pid), await questions(db)];
  await Bun.sleep(seconds * 1000);
  const elapsed = (performance.now() - started) / 1000;
  // One statement of ours (the second SHOW STATUS) falls inside the window.
  const statements = (await questions(db)) - asked - 1;
  return {
    seconds: Math.round(elapsed * 10) / 10,
    cpu_percent: Math.round(((cpuSeconds(pid) - cpu) / elapsed) * 1000) / 10,
    rss_mb: rssMb(pid),
    statements_per_second: Math.round((statements / elapsed) * 10) / 10,
  };
}

/** Runs the leg against a running server (`pid` is its process) on the database `db` reaches. */
export async function idleLongPolls(
  db: DatabaseHandle,
  baseUrl: string,
  pid: number,
  quick: boolean,
): Promise<LongPollFigures> {
  const polls = quick ? 100 : 1_000;
  const companies = quick ? 10 : 100;
  const holdSeconds = quick ? 3 : 30;
  const port = Number(new URL(baseUrl).port);
  const followers: { token: string; cursor: string }[] = [];
  for (let i = 0; i < companies; i++) {
    const { token } = await createCompany(db.db, {
      name: `Long-poll Co ${i}`,
      plan: "enterprise",
      addons: ["api"],
    });
    const start = await fetch(`${baseUrl}/v1/events?after=latest`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const cursor = ((await start.json()) as { meta: { next_cursor: string } }).meta.next_cursor;
    for (let j = 0; j < polls / companies; j++) followers.push({ token, cursor });
  }
  const idle = await measureWindow(db, pid, quick ? 1 : 10);
  const counts = { answered: 0, errors: 0 };
  const sockets = await Promise.all(
    followers.map(({ token, cursor }) => follower(port, token, cursor, counts)),
  );
  try {
    // Let every long-poll reach its wait before the window opens.
    await Bun.sleep(2_000);
    const holding = await measureWindow(db, pid, holdSeconds);
    return {
      polls,
      companies,
      hold_seconds: holdSeconds,
      answered: counts.answered,
      errors: counts.errors,
      idle,
      holding,
    };
  } finally {
    for (const socket of sockets) socket.end();
  }
}

export function describeLongPolls(figures: LongPollFigures): string {
  const { idle, holding } = figures;
  return (
    `${figures.polls.toLocaleString("en")} idle long-polls (wait=30, ${figures.companies} ` +
    `companies) held ${holding.seconds} s: ` +
    `server CPU ${holding.cpu_percent}% of a core (idle ${idle.cpu_percent}%), RSS ` +
    `${holding.rss_mb} MB (idle ${idle.rss_mb} MB), ` +
    `database ${holding.statements_per_second} statements/s (idle ` +
    `${idle.statements_per_second}; every client of the database counted), ` +
    `${figures.answered} answered empty and asked again, ${figures.errors} errors`
  );
}

export interface FilteredLongPollFigures {
  polls: number;
  filter: string;
  writes_per_second: number;
  /** The writing company's creates and another company's GETs, without the long-polls. */
  without: BusyWindowFigures;
  with: BusyWindowFigures;
  /** Long-polls answered and asked again during the window with them (their wait ran out). */
  answered: number;
  errors: number;
}

interface BusyWindowFigures extends WindowFigures {
  writes: number;
  write_errors: number;
  /** What the failed writes were answered (status or network error), with how many each. */
  write_failures: Record<string, number>;
  other_gets: number;
  other_get_errors: number;
  other_get_p50_ms: number;
  other_get_p99_ms: number;
}

const percentile = (sorted: readonly number[], p: number): number =>
  sorted.length === 0
    ? 0
    : Math.round(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]! * 10) / 10;

/**
 * Over `seconds`: `writesPerSecond` worker creates of the writing company (paced, not waiting for
 * each other) and another company's GET of one worker every 20 ms (one at a time), with the
 * server's CPU, RSS and the database's statements as measureWindow takes them.
 */
async function busyWindow(
  db: DatabaseHandle,
  pid: number,
  seconds: number,
  baseUrl: string,
  writer: string,
  reader: { token: string; path: string },
  writesPerSecond: number,
): Promise<BusyWindowFigures> {
  let stop = false;
  const writes = { done: 0, errors: 0 };
  const failures: Record<string, number> = {};
  const failed = (what: string) => {
    writes.errors += 1;
    failures[what] = (failures[what] ?? 0) + 1;
  };
  const pending: Promise<void>[] = [];
  const writing = (async () => {
    const started = performance.now();
    for (let n = 0; !stop; n++) {
      const due = started + (n * 1000) / writesPerSecond;
      await Bun.sleep(Math.max(0, due - performance.now()));
      if (stop) break;
      pending.push(
        fetch(`${baseUrl}/v1/workers`, {
          method: "POST",
          headers: { authorization: `Bearer ${writer}`, "content-type": "application/json" },
          body: JSON.stringify({ name: `Writer ${n}` }),
        }).then(
          async (response) => {
            await response.arrayBuffer();
            if (response.status === 201) writes.done += 1;
            else failed(String(response.status));
          },
          (error: unknown) => failed(error instanceof Error ? error.name : "error"),
        ),
      );
    }
  })();
  const latencies: number[] = [];
  let getErrors = 0;
  const reading = (async () => {
    while (!stop) {
      const started = performance.now();
      try {
        const response = await fetch(`${baseUrl}${reader.path}`, {
          headers: { authorization: `Bearer ${reader.token}` },
        });
        await response.arrayBuffer();
        if (response.status === 200) latencies.push(performance.now() - started);
        else getErrors += 1;
      } catch {
        getErrors += 1;
      }
      await Bun.sleep(Math.max(0, 20 - (performance.now() - started)));
    }
  })();
  const window = await measureWindow(db, pid, seconds);
  stop = true;
  await Promise.all([writing, reading]);
  await Promise.all(pending);
  latencies.sort((a, b) => a - b);
  return {
    ...window,
    writes: writes.done,
    write_errors: writes.errors,
    write_failures: failures,
    other_gets: latencies.length,
    other_get_errors: getErrors,
    other_get_p50_ms: percentile(latencies, 0.5),
    other_get_p99_ms: percentile(latencies, 0.99),
  };
}

/**
 * Filtered followers of a busy company: 1,000 long-polls of one company narrowed to
 * `type=project.created` while that company creates 20 workers a second (events none of them
 * wants), and another company's GETs; the same load without the long-polls just before.
 * --quick: 100 long-polls, 3 s windows.
 */
export async function filteredLongPolls(
  db: DatabaseHandle,
  baseUrl: string,
  pid: number,
  quick: boolean,
): Promise<FilteredLongPollFigures> {
  const polls = quick ? 100 : 1_000;
  const seconds = quick ? 3 : 30;
  const writesPerSecond = 20;
  const filter = "&type=project.created";
  const port = Number(new URL(baseUrl).port);
  const writing = await createCompany(db.db, {
    name: "Busy Co",
    plan: "enterprise",
    addons: ["api"],
  });
  const other = await createCompany(db.db, {
    name: "Other Co",
    plan: "enterprise",
    addons: ["api"],
  });
  const created = await fetch(`${baseUrl}/v1/workers`, {
    method: "POST",
    headers: { authorization: `Bearer ${other.token}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "Read again and again" }),
  });
  const workerId = ((await created.json()) as { data: { id: number } }).data.id;
  const reader = { token: other.token, path: `/v1/workers/${workerId}` };
  const run = (window: number) =>
    busyWindow(db, pid, window, baseUrl, writing.token, reader, writesPerSecond);
  // Warm-up (compiles the write and read paths), then the load without the long-polls.
  await run(quick ? 1 : 5);
  const without = await run(seconds);
  const start = await fetch(`${baseUrl}/v1/events?after=latest`, {
    headers: { authorization: `Bearer ${writing.token}` },
  });
  const cursor = ((await start.json()) as { meta: { next_cursor: string } }).meta.next_cursor;
  // The followers run on a thread of their own: answering and parsing a thousand long-polls here
  // would delay the timings of the other company's GETs, which are the server's to keep.
  const followers = new Worker(new URL("./long-poll-followers.ts", import.meta.url));
  const ask = (message: FollowersMessage) =>
    new Promise<FollowerCounts>((resolve) => {
      followers.onmessage = (event: MessageEvent<FollowerCounts>) => resolve(event.data);
      followers.postMessage(message);
    });
  try {
    await ask({ open: { port, token: writing.token, cursor, filter, count: polls } });
    await Bun.sleep(2_000);
    const before = await ask({ report: true });
    const busy = await run(seconds);
    const after = await ask({ close: true });
    return {
      polls,
      filter: filter.slice(1),
      writes_per_second: writesPerSecond,
      without,
      with: busy,
      answered: after.answered - before.answered,
      errors: after.errors,
    };
  } finally {
    followers.terminate();
  }
}

export function describeFilteredLongPolls(figures: FilteredLongPollFigures): string {
  const { without, with: busy } = figures;
  const added = Math.round((busy.statements_per_second - without.statements_per_second) * 10) / 10;
  const ratio =
    without.other_get_p99_ms > 0
      ? Math.round((busy.other_get_p99_ms / without.other_get_p99_ms) * 100) / 100
      : 0;
  const get = (window: BusyWindowFigures) =>
    `${window.other_get_p50_ms}/${window.other_get_p99_ms}`;
  return (
    `${figures.polls.toLocaleString("en")} long-polls (${figures.filter}) of a company writing ` +
    `${figures.writes_per_second} workers/s, ${busy.seconds} s: database ` +
    `${busy.statements_per_second} statements/s against ${without.statements_per_second} without ` +
    `them (+${added}, target < 100); another company's GET p50/p99 ${get(busy)} ms against ` +
    `${get(without)} ms (p99 ${ratio}x, target ≤ 1.5x); server CPU ${busy.cpu_percent}% of a core ` +
    `(${without.cpu_percent}% without); ${busy.writes} writes (${busy.write_errors} ` +
    `failed${busy.write_errors ? ` ${JSON.stringify(busy.write_failures)}` : ""}), ` +
    `${busy.other_gets} GETs (${busy.other_get_errors} failed), ${figures.answered} long-polls ` +
    `answered, ${figures.errors} errors`
  );
}

if (import.meta.main) {
  const quick = process.argv.includes("--quick");
  await withThrowAwayDatabase("erp_bench", async (url) => {
    const db = connectDatabase(url, { connectionLimit: 2 });
    let api: Subprocess<"ignore", "pipe", "inherit"> | undefined;
    try {
      const ours = await spawnServer("server/src/main.ts", url);
      api = ours.process;
      if (!process.argv.includes("--filtered-only"))
        console.log(describeLongPolls(await idleLongPolls(db, ours.baseUrl, api.pid, quick)));
      console.log(
        describeFilteredLongPolls(await filteredLongPolls(db, ours.baseUrl, api.pid, quick)),
      );
    } finally {
      api?.kill("SIGTERM");
      await api?.exited;
      await db.close();
    }
  });
}
