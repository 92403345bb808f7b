// The attachments leg of `bun run bench` (docs/attachments.md): a 100 MiB file uploaded to our
// server as a stream and downloaded again, with the server's RSS sampled all the while, beside a
// plain copy of the same file through the same store in this process (no HTTP, no hashing, no
// database). Goals: the server's peak RSS during each stays within +32 MiB of its idle RSS, and each
// runs at ≥ 0.5 of the plain copy's speed. Run for the directory store, then for an S3-compatible
// store (s3rver in a process of its own, as the tests start it), where the plain copy is a multipart
// upload with the same client. Alone: `bun bench/attachments.ts [--quick] [--store directory|s3]`,
// on a throw-away database.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { open } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { connectDatabase, createCompany } from "@erp/server/admin";
import { DirectoryStore, parseS3Url, S3Store } from "@erp/server/attachment-stores";
import { startS3Server } from "../testing/src/s3-server.ts";
import { spawnServer } from "./spawn-server.ts";
import { withThrowAwayDatabase } from "./throw-away-database.ts";

const MiB = 1024 * 1024;

export const ATTACHMENT_SIZES = {
  full: { bytes: 100 * MiB, rounds: 3 },
  quick: { bytes: 8 * MiB, rounds: 1 },
} as const;

/** The goals: peak RSS over idle during a transfer, and the transfer's speed over a plain copy's. */
export const ATTACHMENT_TARGETS = { rssOverIdleMb: 32, speedRatio: 0.5 } as const;

/** How often the server's memory is sampled during a transfer. */
const SAMPLE_MS = 5;

export interface Transfer {
  /** MiB/s of each round, through the server and by the plain copy. */
  serverMiBps: number[];
  plainMiBps: number[];
  /** Median of the rounds' ratios of the two. */
  ratio: number;
  /** The server's most RSS above idle in each round (the larger of the sampled RSS and VmHWM). */
  peaksOverIdleMb: number[];
  /** The most of them. */
  peakOverIdleMb: number;
}

export interface StoreResult {
  store: "directory" | "s3";
  idleMb: number;
  upload: Transfer;
  download: Transfer;
}

export interface AttachmentResult {
  mib: number;
  rounds: number;
  stores: StoreResult[];
}

const round1 = (value: number): number => Math.round(value * 10) / 10;
const median = (values: number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

function memoryKb(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const field = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rss: field("VmRSS"), hwm: field("VmHWM") };
}

/**
 * Runs `work` while sampling the server's RSS; the most it held, in MiB. VmHWM is reset first
 * (`clear_refs`), so a peak between two samples counts too.
 */
async function peakDuring(pid: number, work: () => Promise<void>): Promise<number> {
  writeFileSync(`/proc/${pid}/clear_refs`, "5");
  let peak = memoryKb(pid).rss;
  const timer = setInterval(() => {
    peak = Math.max(peak, memoryKb(pid).rss);
  }, SAMPLE_MS);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  const { rss, hwm } = memoryKb(pid);
  return Math.max(peak, rss, hwm) / 1024;
}

/** The server's RSS at rest: the least of a few samples a while apart, in MiB. */
async function idleMb(pid: number): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < 5; i++) {
    await Bun.sleep(200);
    samples.push(memoryKb(pid).rss);
  }
  return Math.min(...samples) / 1024;
}

/** A file of `bytes` that differ along it, for the uploads to read from. */
async function sourceFile(dir: string, bytes: number): Promise<string> {
  const file = path.join(dir, "source.bin");
  const handle = await open(file, "w");
  const chunk = new Uint8Array(MiB);
  for (let written = 0; written < bytes; written += chunk.length) {
    crypto.getRandomValues(chunk.subarray(0, 65_536));
    chunk.copyWithin(65_536, 0, MiB - 65_536);
    await handle.write(chunk, 0, Math.min(chunk.length, bytes - written));
  }
  await handle.close();
  return file;
}

/** A stream's chunks, one at a time. */
async function* chunksOf(stream: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = stream.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    yield value;
  }
}

/** Writes a stream to a file as it comes (what a client saving a download does). */
async function streamToFile(stream: ReadableStream<Uint8Array>, file: string): Promise<number> {
  const handle = await open(file, "w");
  let size = 0;
  try {
    for await (const chunk of chunksOf(stream)) {
      let offset = 0;
      while (offset < chunk.byteLength) offset += (await handle.write(chunk, offset)).bytesWritten;
      size += chunk.byteLength;
    }
  } finally {
    await handle.close();
  }
  return size;
}

type Store = DirectoryStore | S3Store;

/** One store's measurements against a running server that keeps its attachments there. */
async function measureStore(
  kind: StoreResult["store"],
  store: Store,
  server: { baseUrl: string; pid: number },
  token: string,
  recordPath: string,
  work: string,
  sizes: { bytes: number; rounds: number },
): Promise<StoreResult> {
  const source = await sourceFile(work, sizes.bytes);
  const target = path.join(work, "download.bin");
  const seconds = async (run: () => Promise<unknown>) => {
    const started = performance.now();
    await run();
    return (performance.now() - started) / 1000;
  };
  const upload = async (file = source, size = sizes.bytes): Promise<number> => {
    const response = await fetch(`${server.baseUrl}${recordPath}/attachments?filename=bench.bin`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/octet-stream" },
      body: Bun.file(file).stream(),
      duplex: "half",
    } as RequestInit);
    const body = (await response.json()) as { data: { id: number; size: number } };
    if (response.status !== 201 || body.data.size !== size)
      throw new Error(`upload: ${response.status} ${JSON.stringify(body)}`);
    return body.data.id;
  };
  const download = async (id: number): Promise<void> => {
    const response = await fetch(`${server.baseUrl}/v1/attachments/${id}/content`, {
      headers: { authorization: `Bearer ${token}` },
    });
    if (response.status !== 200 || !response.body) throw new Error(`download: ${response.status}`);
    const size = await streamToFile(response.body, target);
    if (size !== sizes.bytes) throw new Error(`download: ${size} bytes`);
  };
  const remove = (id: number) =>
    fetch(`${server.baseUrl}/v1/attachments/${id}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${token}` },
    });
  // Warm the path (JIT, pools) with a small file; then the server rests.
  const warm = path.join(work, "warm.bin");
  await Bun.write(warm, new Uint8Array(MiB));
  await remove(await upload(warm, MiB));
  const idle = await idleMb(server.pid);
  const up = { server: [] as number[], plain: [] as number[], peaks: [] as number[] };
  const down = { server: [] as number[], plain: [] as number[], peaks: [] as number[] };
  const mib = sizes.bytes / MiB;
  for (let r = 0; r < sizes.rounds; r++) {
    let id = 0;
    let upSeconds = 0;
    up.peaks.push(
      await peakDuring(server.pid, async () => {
        upSeconds = await seconds(async () => {
          id = await upload();
        });
      }),
    );
    up.server.push(mib / upSeconds);
    let downSeconds = 0;
    down.peaks.push(
      await peakDuring(server.pid, async () => {
        downSeconds = await seconds(() => download(id));
      }),
    );
    down.server.push(mib / downSeconds);
    await remove(id);
    // The plain copy: the same file into the same store, and out of it, without the server.
    const key = `bench/${crypto.randomUUID()}`;
    up.plain.push(
      mib /
        (await seconds(async () => {
          const plain = store.begin(key, "application/octet-stream");
          for await (const chunk of chunksOf(Bun.file(source).stream())) await plain.write(chunk);
          await plain.finish();
        })),
    );
    down.plain.push(mib / (await seconds(() => streamToFile(streamOf(store.read(key)), target))));
    await store.remove(key);
    // The next round starts from rest.
    await idleMb(server.pid);
  }
  const transfer = (t: typeof up): Transfer => ({
    serverMiBps: t.server.map(round1),
    plainMiBps: t.plain.map(round1),
    ratio: Math.round(median(t.server.map((s, i) => s / t.plain[i]!)) * 100) / 100,
    peaksOverIdleMb: t.peaks.map((peak) => round1(peak - idle)),
    peakOverIdleMb: round1(Math.max(...t.peaks) - idle),
  });
  return { store: kind, idleMb: round1(idle), upload: transfer(up), download: transfer(down) };
}

const streamOf = (body: Blob | ReadableStream<Uint8Array>): ReadableStream<Uint8Array> =>
  body instanceof Blob ? body.stream() : body;

/** The leg: a server on the directory store, then one on s3rver; each measured on its own. */
export async function attachmentsLeg(
  databaseUrl: string,
  sizes: { bytes: number; rounds: number },
  only?: StoreResult["store"],
): Promise<AttachmentResult> {
  const db = connectDatabase(databaseUrl, { connectionLimit: 2 });
  const work = mkdtempSync(path.join(tmpdir(), "erp-bench-attachments-"));
  const stores: StoreResult[] = [];
  try {
    const company = await createCompany(db.db, {
      name: "Attachments Co",
      plan: "enterprise",
      addons: ["api"],
    });
    const root = path.join(work, "store");
    const s3 = await startS3Server();
    try {
      const s3Env = s3.env("bench");
      const legs = [
        { kind: "directory", env: { ATTACHMENTS_STORE: root }, store: new DirectoryStore(root) },
        {
          kind: "s3",
          env: s3Env,
          store: new S3Store(parseS3Url(s3Env.ATTACHMENTS_STORE!), s3Env),
        },
      ] as const;
      for (const leg of legs.filter((one) => only === undefined || one.kind === only)) {
        const server = await spawnServer("server/src/main.ts", databaseUrl, { env: leg.env });
        try {
          const worker = await fetch(`${server.baseUrl}/v1/workers`, {
            method: "POST",
            headers: {
              authorization: `Bearer ${company.token}`,
              "content-type": "application/json",
            },
            body: JSON.stringify({ name: "Bench attachments", email: "bench@example.com" }),
          });
          const id = ((await worker.json()) as { data: { id: number } }).data.id;
          stores.push(
            await measureStore(
              leg.kind,
              leg.store,
              { baseUrl: server.baseUrl, pid: server.process.pid },
              company.token,
              `/v1/workers/${id}`,
              work,
              sizes,
            ),
          );
        } finally {
          server.process.kill();
          await server.process.exited;
        }
      }
    } finally {
      await s3.stop();
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
    await db.close();
  }
  return { mib: sizes.bytes / MiB, rounds: sizes.rounds, stores };
}

/** The leg's lines of the bench report. */
export function describeAttachments(result: AttachmentResult): string {
  const { rssOverIdleMb, speedRatio } = ATTACHMENT_TARGETS;
  const line = (name: string, t: Transfer) =>
    `    ${name}: RSS +${t.peakOverIdleMb} MiB over idle (target ≤ +${rssOverIdleMb}; rounds ` +
    `${t.peaksOverIdleMb.join("/")}); ` +
    `${t.serverMiBps.join("/")} MiB/s vs plain copy ${t.plainMiBps.join("/")} MiB/s, ` +
    `ratio ${t.ratio} (target ≥ ${speedRatio})`;
  return [
    `Attachments, ${result.mib} MiB file, ${result.rounds} round(s):`,
    ...result.stores.flatMap((s) => [
      `  ${s.store} store (server idle ${s.idleMb} MiB):`,
      line("upload", s.upload),
      line("download", s.download),
    ]),
  ].join("\n");
}

if (import.meta.main) {
  const sizes = process.argv.includes("--quick") ? ATTACHMENT_SIZES.quick : ATTACHMENT_SIZES.full;
  // `--store directory` or `--store s3`: one store only.
  const flag = process.argv.indexOf("--store");
  const only = flag > 0 ? (process.argv[flag + 1] as StoreResult["store"]) : undefined;
  await withThrowAwayDatabase("erp_bench_attachments", async (url) => {
    console.log(describeAttachments(await attachmentsLeg(url, sizes, only)));
  });
}
