// Uploads and downloads of attachments over real HTTP, and what a store holds, for the attachments'
// tests (docs/attachments.md).
import { readdirSync } from "node:fs";
import path from "node:path";
import type { RowDataPacket } from "mysql2";
import { testDb } from "./company.ts";

/** `size` bytes that differ from one offset to the next (a byte-identical check means something). */
export function patterned(size: number, seed = 7): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(size);
  let state = seed;
  for (let i = 0; i < size; i++) {
    state = (state * 1103515245 + 12345) >>> 0;
    bytes[i] = state >>> 24;
  }
  return bytes;
}

/** `bytes` as a stream of `chunk`-sized pieces, the way a file or a socket hands them over. */
export function streamOf(bytes: Uint8Array, chunk = 256 * 1024): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(offset, offset + chunk));
      offset += chunk;
    },
  });
}

export interface UploadOptions {
  filename?: string;
  contentType?: string;
  headers?: Record<string, string>;
  query?: string;
}

/** POSTs `body` as an attachment of `/v1/{resource}/{id}`; the answer's status, headers and JSON. */
export async function upload(
  baseUrl: string,
  token: string,
  recordPath: string,
  body: BodyInit | Uint8Array,
  options: UploadOptions = {},
) {
  const filename = encodeURIComponent(options.filename ?? "file.bin");
  const response = await fetch(
    `${baseUrl}${recordPath}/attachments?filename=${filename}${options.query ?? ""}`,
    {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": options.contentType ?? "application/octet-stream",
        ...options.headers,
      },
      body,
      // A stream is sent as it is read (chunked).
      ...(body instanceof ReadableStream ? { duplex: "half" } : {}),
    } as RequestInit,
  );
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: text ? JSON.parse(text) : undefined,
  };
}

/** GETs a path with the token; the answer's bytes. */
export async function download(
  baseUrl: string,
  token: string | undefined,
  target: string,
  headers: Record<string, string> = {},
) {
  const response = await fetch(target.startsWith("http") ? target : `${baseUrl}${target}`, {
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
  });
  return {
    status: response.status,
    headers: response.headers,
    bytes: new Uint8Array(await response.arrayBuffer()),
  };
}

/** The company's attachment rows, as stored. */
export async function attachmentRows(companyId: number): Promise<RowDataPacket[]> {
  const [rows] = await testDb().pool.query<RowDataPacket[]>(
    "SELECT * FROM attachments WHERE company_id = ? ORDER BY id",
    [companyId],
  );
  return rows;
}

/** Every file under a directory store's `dir` (objects and temporary files), relative to `root`. */
export function filesUnder(root: string, dir: string): string[] {
  const base = path.join(root, dir);
  try {
    return readdirSync(base, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)));
  } catch {
    return [];
  }
}

/** SHA-256 of `bytes` as RFC 9530 writes it: `sha-256=:base64:`. */
export function contentDigest(bytes: Uint8Array): string {
  return `sha-256=:${new Bun.CryptoHasher("sha256").update(bytes).digest("base64")}:`;
}

/** Polls `check` until it holds or `ms` pass; what it last gave. */
export async function eventually<T>(
  check: () => Promise<T> | T,
  ok: (value: T) => boolean,
  ms = 5_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (ok(value) || Date.now() > deadline) return value;
    await Bun.sleep(50);
  }
}

/**
 * Starts an upload of `total` bytes to `/v1/{resource}/{id}` and sends the first `sent` of them, then
 * leaves the connection open: an upload under way, for a test to break off (the client or the
 * server). The socket, to end it.
 */
export async function partialUpload(
  port: number,
  token: string,
  recordPath: string,
  sizes: { total: number; sent: number },
) {
  const socket = await Bun.connect({ hostname: "127.0.0.1", port, socket: { data() {} } });
  socket.write(
    [
      `POST ${recordPath}/attachments?filename=cut-short.bin HTTP/1.1`,
      "Host: 127.0.0.1",
      `Authorization: Bearer ${token}`,
      "Content-Type: application/octet-stream",
      `Content-Length: ${sizes.total}`,
      "",
      "",
    ].join("\r\n"),
  );
  const part = patterned(sizes.sent, 3);
  let offset = 0;
  while (offset < part.length) {
    const written = socket.write(part.subarray(offset));
    offset += Math.max(0, written);
    if (written <= 0) await Bun.sleep(1);
  }
  return socket;
}

/** The loose keys (objects no row owns, docs/attachments.md) of the company's uploads and deletes. */
export async function looseKeys(companyId: number): Promise<string[]> {
  const [rows] = await testDb().pool.query<RowDataPacket[]>(
    "SELECT object_key FROM loose_objects WHERE object_key LIKE ? ORDER BY object_key",
    [`${companyId}/%`],
  );
  return rows.map((row) => row.object_key as string);
}

/** Ages the company's loose keys by `hours`, as if that long had passed since they were written. */
export async function ageLooseKeys(companyId: number, hours: number): Promise<void> {
  await testDb().pool.query(
    `UPDATE loose_objects SET since = since - INTERVAL ${Number(hours)} HOUR WHERE object_key LIKE ?`,
    [`${companyId}/%`],
  );
}
