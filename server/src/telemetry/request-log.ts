// One line per answered request on stdout: JSON for log pipelines, or a short line for people
// (LOG_FORMAT=pretty). It names the request, never its token, body or any secret.
export interface RequestLine {
  time: string;
  level: "info" | "warn" | "error";
  request_id: string;
  trace_id: string;
  company_id: number | null;
  method: string;
  route: string;
  status: number;
  duration_ms: number;
  db_ms: number;
}

/** What the server tells of a request; the log adds the time and level. */
export type RequestFields = Omit<RequestLine, "time" | "level">;

export type LogFormat = "json" | "pretty" | "off";

export function readLogFormat(value: string | undefined): LogFormat {
  const format = (value ?? "json").toLowerCase();
  if (format === "json" || format === "pretty" || format === "off") return format;
  throw new Error(`LOG_FORMAT must be json, pretty or off, not "${value}"`);
}

const levelOf = (status: number): RequestLine["level"] =>
  status >= 500 ? "error" : status >= 400 && status !== 404 && status !== 304 ? "warn" : "info";

function pretty(line: RequestLine): string {
  const company = line.company_id === null ? "" : ` company ${line.company_id}`;
  return (
    `${line.time} ${line.status} ${line.method} ${line.route} ${line.duration_ms} ms ` +
    `(db ${line.db_ms} ms)${company} ${line.request_id}\n`
  );
}

/** The time of a line: the ISO text of its second is made once and reused by its other lines. */
class LineClock {
  #second = -1;
  #prefix = "";

  now(): string {
    const ms = Date.now();
    const second = ms - (ms % 1000);
    if (second !== this.#second) {
      this.#second = second;
      this.#prefix = new Date(second).toISOString().slice(0, 20);
    }
    const fraction = ms - second;
    return `${this.#prefix}${fraction < 10 ? "00" : fraction < 100 ? "0" : ""}${fraction}Z`;
  }
}

/** The methods the app serves, which need no escaping; any other is the client's text. */
const METHODS: ReadonlySet<string> = new Set([
  "GET",
  "HEAD",
  "POST",
  "PUT",
  "PATCH",
  "DELETE",
  "OPTIONS",
]);

/**
 * A line as JSON, written out field by field: its texts need no escaping (ids are validated or
 * made here, routes are templates of the app), except a method the app does not know.
 */
function json(time: string, level: RequestLine["level"], line: RequestFields): string {
  return (
    `{"time":"${time}","level":"${level}","request_id":"${line.request_id}",` +
    `"trace_id":"${line.trace_id}","company_id":${line.company_id},` +
    `"method":${METHODS.has(line.method) ? `"${line.method}"` : JSON.stringify(line.method)},` +
    `"route":"${line.route}","status":${line.status},` +
    `"duration_ms":${line.duration_ms},"db_ms":${line.db_ms}}\n`
  );
}

/** How long a line may wait to be written, and how much may wait before it is written at once. */
const FLUSH_MS = 50;
const FLUSH_BYTES = 64 * 1024;
/** Room for the bytes of up to FLUSH_BYTES and one more line. */
const BUFFER_BYTES = 2 * FLUSH_BYTES;
/** Buffers kept for lines to come while earlier ones are being written out. */
const KEPT_BUFFERS = 2;

/**
 * Lines go out together: one write to stdout for the lines of up to 50 ms (or 64 KB), rather than
 * one system call per request or per turn of the event loop (under load a turn answers only a few
 * requests, and its write cost more than the rest of its lines). Each line is written as bytes into
 * a buffer, handed to stdout whole and used again once stdout took it, rather than joined into a
 * new text per write: memory freed and taken again costs page faults (bench/README.md, "Memory
 * given back and taken again"). Shutdown writes what is left.
 */
export class RequestLog {
  #buffer: Buffer = Buffer.allocUnsafe(BUFFER_BYTES);
  /** Bytes of lines in the buffer. */
  #used = 0;
  readonly #kept: Buffer[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  readonly #clock = new LineClock();

  constructor(readonly format: LogFormat) {}

  write(fields: RequestFields): void {
    if (this.format === "off") return;
    const time = this.#clock.now();
    const level = levelOf(fields.status);
    const line =
      this.format === "pretty" ? pretty({ time, level, ...fields }) : json(time, level, fields);
    // UTF-8 takes at most three bytes per UTF-16 unit.
    if (line.length * 3 > BUFFER_BYTES - this.#used) {
      this.flush();
      // A line longer than a buffer (a client's very long method) goes out on its own.
      if (line.length * 3 > BUFFER_BYTES) return void process.stdout.write(line);
    }
    this.#used += this.#buffer.write(line, this.#used);
    if (this.#used >= FLUSH_BYTES) this.flush();
    else this.#timer ??= setTimeout(() => this.flush(), FLUSH_MS);
  }

  flush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#used === 0) return;
    const full = this.#buffer;
    const lines = full.subarray(0, this.#used);
    this.#buffer = this.#kept.pop() ?? Buffer.allocUnsafe(BUFFER_BYTES);
    this.#used = 0;
    process.stdout.write(lines, () => {
      if (this.#kept.length < KEPT_BUFFERS) this.#kept.push(full);
    });
  }
}
