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

/**
 * Lines go out together: one write to stdout for the lines of up to 50 ms (or 64 KB), rather than
 * one system call per request or per turn of the event loop (under load a turn answers only a few
 * requests, and its write cost more than the rest of its lines). Shutdown writes what is left.
 */
export class RequestLog {
  /** The lines waiting, joined once when written: a text grown line by line cost more to write. */
  readonly #pending: string[] = [];
  #bytes = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  readonly #clock = new LineClock();

  constructor(readonly format: LogFormat) {}

  write(fields: RequestFields): void {
    if (this.format === "off") return;
    const time = this.#clock.now();
    const level = levelOf(fields.status);
    const line =
      this.format === "pretty" ? pretty({ time, level, ...fields }) : json(time, level, fields);
    this.#pending.push(line);
    this.#bytes += line.length;
    if (this.#bytes >= FLUSH_BYTES) this.flush();
    else this.#timer ??= setTimeout(() => this.flush(), FLUSH_MS);
  }

  flush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#pending.length === 0) return;
    const text = this.#pending.join("");
    this.#pending.length = 0;
    this.#bytes = 0;
    process.stdout.write(text);
  }
}
