// Bench leg: what idle followers of the change feed cost while they wait. 1,000 long-polls
// (`wait=30`, each asked again as soon as it comes back empty, as a follower does) spread over 100
// companies, each on its own connection, held for 30 s: the server's CPU (% of one core) and RSS,
// and the database's statements per second (MariaDB's `Questions` counter, which counts every
// client of the database server), beside the same figures for the idle server just before.
// `bun run bench` runs it after the scenarios; `bun bench/long-poll.ts [--quick]` runs it alone on
// a throw-away database. --quick: 100 long-polls over 10 companies, held for 3 s.
import { readFileSync } from "node:fs";
import type { Subprocess } from "bun";
import {
  connectDatabase,
  createCompany,
  migrateDatabase,
  type DatabaseHandle,
} from "@erp/server/admin";
import {
  createDatabase,
  dropDatabase,
  provisionDatabaseServer,
  withDatabase,
} from "../scripts/lib/provision.ts";
import { spawnServer } from "./spawn-server.ts";

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

const TICKS_PER_SECOND = 100;

/** User plus system CPU time of a process, in seconds. */
function cpuSeconds(pid: number): number {
  // Fields after the parenthesised command name: utime and stime are the 12th and 13th.
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
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

/** One follower on its own keep-alive connection: asks again with each page's next_cursor. */
async function follower(
  port: number,
  token: string,
  cursor: string,
  counts: { answered: number; errors: number },
) {
  let received = "";
  let after = cursor;
  const ask = (socket: { write(data: string): number }) =>
    socket.write(
      `GET /v1/events?after=${after}&wait=30 HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n\r\n`,
    );
  const socket = await Bun.connect({
    hostname: "127.0.0.1",
    port,
    socket: {
      data(connection, chunk) {
        received += new TextDecoder().decode(chunk);
        const headEnd = received.indexOf("\r\n\r\n");
        if (headEnd === -1) return;
        const length = Number(/content-length: *(\d+)/i.exec(received.slice(0, headEnd))?.[1] ?? 0);
        if (received.length < headEnd + 4 + length) return;
        const status = Number(received.slice(9, 12));
        const body = received.slice(headEnd + 4, headEnd + 4 + length);
        received = received.slice(headEnd + 4 + length);
        if (status !== 200) {
          counts.errors += 1;
          return;
        }
        counts.answered += 1;
        after = (JSON.parse(body) as { meta: { next_cursor: string } }).meta.next_cursor;
        ask(connection);
      },
      error: () => {
        counts.errors += 1;
      },
    },
  });
  ask(socket);
  return socket;
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
    `${figures.polls.toLocaleString("en")} idle long-polls (wait=30, ${figures.companies} companies) held ${holding.seconds} s: ` +
    `server CPU ${holding.cpu_percent}% of a core (idle ${idle.cpu_percent}%), RSS ${holding.rss_mb} MB (idle ${idle.rss_mb} MB), ` +
    `database ${holding.statements_per_second} statements/s (idle ${idle.statements_per_second}; every client of the database counted), ` +
    `${figures.answered} answered empty and asked again, ${figures.errors} errors`
  );
}

if (import.meta.main) {
  const quick = process.argv.includes("--quick");
  const server = await provisionDatabaseServer({
    envUrl: process.env.BENCH_DATABASE_URL || undefined,
    envName: "BENCH_DATABASE_URL",
  });
  const name = `erp_bench_${Date.now()}_${Math.random().toString(36).slice(2, 8)}`;
  const url = withDatabase(server.url, name);
  let db: DatabaseHandle | undefined;
  let api: Subprocess<"ignore", "pipe", "inherit"> | undefined;
  try {
    await createDatabase(server.url, name);
    await migrateDatabase(url);
    db = connectDatabase(url, { connectionLimit: 2 });
    const ours = await spawnServer("server/src/main.ts", url);
    api = ours.process;
    console.log(describeLongPolls(await idleLongPolls(db, ours.baseUrl, api.pid, quick)));
  } finally {
    api?.kill("SIGTERM");
    await api?.exited;
    await db?.close();
    await dropDatabase(server.url, name).catch((error) =>
      console.error(`could not drop ${name}: ${error}`),
    );
    await server.stop();
  }
}
